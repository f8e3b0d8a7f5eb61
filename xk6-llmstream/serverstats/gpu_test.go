package serverstats

import (
	"strings"
	"testing"
)

// dcgmPage is two GPUs as dcgm-exporter writes them (its default counters'
// names and labels), beside a vLLM gauge.
const dcgmPage = `# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-aaaa",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 1980
DCGM_FI_DEV_SM_CLOCK{gpu="1",UUID="GPU-bbbb",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 1410
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-aaaa",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 90
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-bbbb",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 30
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-aaaa",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 70000
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-bbbb",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 60000
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-aaaa",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 650.5
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-bbbb",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 250.5
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} 3
`

// TestParseDCGM: utilization and SM clock are the GPUs' mean, memory and
// power their sum, and the GPUs are counted.
func TestParseDCGM(t *testing.T) {
	t.Parallel()
	s, err := Parse(strings.NewReader(dcgmPage))
	if err != nil {
		t.Fatal(err)
	}
	g := s.GPU
	if g == nil || g.Util == nil || g.MemUsed == nil || g.Power == nil || g.Clock == nil {
		t.Fatalf("GPU %+v", g)
	}
	if *g.Util != 60 || *g.MemUsed != 130000 || *g.Power != 901 || *g.Clock != 1695 || g.GPUs != 2 {
		t.Errorf("util %v mem %v power %v clock %v gpus %d", *g.Util, *g.MemUsed, *g.Power, *g.Clock, g.GPUs)
	}
	if s.Running == nil || *s.Running != 3 {
		t.Errorf("running %v", s.Running)
	}
}

// TestParseDCGMRejectsOutOfRange: a utilization over 100% or a negative
// power leaves that signal out and is counted; a page without DCGM metrics
// has no GPU.
func TestParseDCGMRejectsOutOfRange(t *testing.T) {
	t.Parallel()
	page := strings.Replace(strings.Replace(dcgmPage, "} 90\n", "} 190\n", 1), "} 250.5\n", "} -1\n", 1)
	s, err := Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if s.GPU == nil || s.GPU.Util != nil || s.GPU.Power != nil || s.GPU.MemUsed == nil || s.Rejected != 2 {
		t.Errorf("GPU %+v rejected %d", s.GPU, s.Rejected)
	}
	s, err = Parse(strings.NewReader("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n"))
	if err != nil || s.GPU != nil {
		t.Errorf("GPU %+v, %v", s.GPU, err)
	}
}
