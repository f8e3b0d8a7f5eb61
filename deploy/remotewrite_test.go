package deploy_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/golang/snappy"
	"google.golang.org/protobuf/encoding/protowire"
)

// A minimal Prometheus remote-write 1.0 sender (WriteRequest of TimeSeries of
// float Samples, protobuf, snappy block-compressed), to feed the dashboard test
// when there is no k6. Field numbers are those of prometheus/prompb types.proto:
// WriteRequest.timeseries = 1; TimeSeries.labels = 1, samples = 2;
// Label.name = 1, value = 2; Sample.value = 1, timestamp = 2 (ms).

type rwSeries struct {
	labels  map[string]string
	samples []rwSample
}

type rwSample struct {
	value float64
	at    time.Time
}

func encodeWriteRequest(series []rwSeries) []byte {
	var req []byte
	for _, s := range series {
		var ts []byte
		names := make([]string, 0, len(s.labels))
		for n := range s.labels {
			names = append(names, n)
		}
		sort.Strings(names) // remote write wants labels sorted by name
		for _, n := range names {
			var l []byte
			l = protowire.AppendTag(l, 1, protowire.BytesType)
			l = protowire.AppendString(l, n)
			l = protowire.AppendTag(l, 2, protowire.BytesType)
			l = protowire.AppendString(l, s.labels[n])
			ts = protowire.AppendTag(ts, 1, protowire.BytesType)
			ts = protowire.AppendBytes(ts, l)
		}
		for _, smp := range s.samples {
			var b []byte
			b = protowire.AppendTag(b, 1, protowire.Fixed64Type)
			b = protowire.AppendFixed64(b, math.Float64bits(smp.value))
			b = protowire.AppendTag(b, 2, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(smp.at.UnixMilli()))
			ts = protowire.AppendTag(ts, 2, protowire.BytesType)
			ts = protowire.AppendBytes(ts, b)
		}
		req = protowire.AppendTag(req, 1, protowire.BytesType)
		req = protowire.AppendBytes(req, ts)
	}
	return req
}

func remoteWrite(t *testing.T, p prometheus, series []rwSeries) {
	t.Helper()
	body := snappy.Encode(nil, encodeWriteRequest(series))
	req, err := http.NewRequest(http.MethodPost, p.base+"/api/v1/write", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("remote write: %s: %s", resp.Status, msg)
	}
}

// feedFromGo writes, for testid, the series k6's experimental-prometheus-rw
// output writes in trend-stats mode (names and labels as k6 v2.2.0 writes them
// for the init starter): two instances, each with successful requests and
// failures of two kinds, at two instants 10 s apart. It returns the request
// counts by error kind and in all.
func feedFromGo(t *testing.T, p prometheus, testid string) (map[string]int, int) {
	t.Helper()
	now := time.Now()
	at := []time.Time{now.Add(-10 * time.Second), now}
	base := func(instance int, errKind, status string) map[string]string {
		l := map[string]string{"testid": testid, "instance_id": fmt.Sprint(instance), "model": "mock",
			"api": "openai-chat", "scenario": "chat", "status": status}
		if errKind != "" {
			l["error"] = errKind
		} else {
			l["token_source"] = "usage"
		}
		return l
	}
	with := func(l map[string]string, name string) map[string]string {
		c := map[string]string{"__name__": name}
		for k, v := range l {
			c[k] = v
		}
		return c
	}
	// requests per instance and tag set, at the two instants
	type set struct {
		errKind, status string
		n               [2]int
	}
	sets := []set{{"", "200", [2]int{8, 15}}, {"http_5xx", "503", [2]int{1, 2}}, {"http_429", "429", [2]int{0, 1}}}
	byKind, total := map[string]int{}, 0
	var series []rwSeries
	two := func(v0, v1 float64) []rwSample { return []rwSample{{v0, at[0]}, {v1, at[1]}} }
	for inst := range 2 {
		for _, s := range sets {
			l := base(inst, s.errKind, s.status)
			n0, n1 := float64(s.n[0]), float64(s.n[1])
			total += s.n[1]
			if s.errKind != "" {
				byKind[s.errKind] += s.n[1]
			}
			// k6 writes the count stat of time trends divided by 1000 (seconds).
			series = append(series, rwSeries{with(l, "k6_llm_e2e_count"), two(n0/1000, n1/1000)})
			series = append(series, rwSeries{with(l, "k6_llm_output_tokens_total"), two(16*n0, 16*n1)})
			series = append(series, rwSeries{with(l, "k6_llm_input_tokens_total"), two(8*n0, 8*n1)})
			slo := 0.0
			if s.errKind == "" {
				slo = 0.9
				for _, m := range []string{"ttft", "tpot", "itl", "e2e"} {
					for i, q := range []string{"p50", "p90", "p99"} {
						v := float64(i+1) * 0.05 * float64(inst+1)
						series = append(series, rwSeries{with(l, "k6_llm_"+m+"_"+q), two(v, v)})
					}
				}
			}
			series = append(series, rwSeries{with(l, "k6_llm_slo_met_rate"), two(slo, slo)})
		}
		hop := map[string]string{"testid": testid, "instance_id": fmt.Sprint(inst), "name": "llmstream-helper",
			"method": "POST", "scenario": "chat", "status": "200"}
		series = append(series, rwSeries{with(hop, "k6_http_reqs_total"), two(9, 18)})
		series = append(series, rwSeries{with(hop, "k6_http_req_failed_rate"), two(0, 0)})
		series = append(series, rwSeries{with(map[string]string{"testid": testid, "instance_id": fmt.Sprint(inst)}, "k6_vus"), two(4, 4)})
	}
	remoteWrite(t, p, series)
	return byKind, total
}
