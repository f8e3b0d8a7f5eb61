package deploy_test

import (
	"bytes"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The types below hold the TestRun fields k6-operator documents, as declared in
// its CRD Go types: api/v1alpha1/testrun_types.go of github.com/grafana/k6-operator
// (read at commit e2c9571ac480ad7ca8ed019062ff67847d76724e): TestRunSpec, K6Script,
// K6Configmap, K6VolumeClaim, Pod, PodMetadata and InitContainer, with the json
// names used there. The Kubernetes types they embed (corev1.EnvVar, Volume,
// VolumeMount, ResourceRequirements, PodSecurityContext) are reduced to the
// fields of k8s.io/api/core/v1 these manifests may use. Decoding with unknown
// fields disallowed turns any misspelt or misplaced field into a test failure.

type testRun struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Metadata   objectMeta  `json:"metadata"`
	Spec       testRunSpec `json:"spec"`
}

type objectMeta struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

type testRunSpec struct {
	Script      k6Script          `json:"script"`
	Parallelism int32             `json:"parallelism"`
	Separate    bool              `json:"separate,omitempty"`
	Arguments   string            `json:"arguments,omitempty"`
	Args        []string          `json:"args,omitempty"`
	Ports       []json.RawMessage `json:"ports,omitempty"`
	Initializer *pod              `json:"initializer,omitempty"`
	Starter     pod               `json:"starter,omitempty"`
	Runner      pod               `json:"runner,omitempty"`
	Quiet       string            `json:"quiet,omitempty"`
	Paused      string            `json:"paused,omitempty"`
	Scuttle     json.RawMessage   `json:"scuttle,omitempty"`
	Cleanup     string            `json:"cleanup,omitempty"`
	TestRunID   string            `json:"testRunId,omitempty"`
	Token       string            `json:"token,omitempty"`
}

type k6Script struct {
	VolumeClaim *struct {
		Name     string `json:"name"`
		File     string `json:"file,omitempty"`
		ReadOnly bool   `json:"readOnly,omitempty"`
	} `json:"volumeClaim,omitempty"`
	ConfigMap *struct {
		Name string `json:"name"`
		File string `json:"file,omitempty"`
	} `json:"configMap,omitempty"`
	LocalFile string `json:"localFile,omitempty"`
}

type pod struct {
	Disabled                     bool                    `json:"disabled,omitempty"`
	Affinity                     json.RawMessage         `json:"affinity,omitempty"`
	AutomountServiceAccountToken string                  `json:"automountServiceAccountToken,omitempty"`
	Env                          []envVar                `json:"env,omitempty"`
	Image                        string                  `json:"image,omitempty"`
	ImagePullSecrets             []struct{ Name string } `json:"imagePullSecrets,omitempty"`
	ImagePullPolicy              string                  `json:"imagePullPolicy,omitempty"`
	Metadata                     *struct {
		Annotations map[string]string `json:"annotations,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
	} `json:"metadata,omitempty"`
	NodeSelector              map[string]string `json:"nodeSelector,omitempty"`
	Tolerations               []json.RawMessage `json:"tolerations,omitempty"`
	TopologySpreadConstraints []json.RawMessage `json:"topologySpreadConstraints,omitempty"`
	Resources                 *resources        `json:"resources,omitempty"`
	ServiceAccountName        string            `json:"serviceAccountName,omitempty"`
	SecurityContext           *struct {
		RunAsUser    *int64 `json:"runAsUser,omitempty"`
		RunAsGroup   *int64 `json:"runAsGroup,omitempty"`
		RunAsNonRoot *bool  `json:"runAsNonRoot,omitempty"`
		FSGroup      *int64 `json:"fsGroup,omitempty"`
	} `json:"securityContext,omitempty"`
	ContainerSecurityContext json.RawMessage   `json:"containerSecurityContext,omitempty"`
	EnvFrom                  []json.RawMessage `json:"envFrom,omitempty"`
	ReadinessProbe           json.RawMessage   `json:"readinessProbe,omitempty"`
	LivenessProbe            json.RawMessage   `json:"livenessProbe,omitempty"`
	InitContainers           []initContainer   `json:"initContainers,omitempty"`
	Volumes                  []volume          `json:"volumes,omitempty"`
	VolumeMounts             []volumeMount     `json:"volumeMounts,omitempty"`
	PriorityClassName        string            `json:"priorityClassName,omitempty"`
	SchedulerName            string            `json:"schedulerName,omitempty"`
}

type initContainer struct {
	Name          string            `json:"name,omitempty"`
	Image         string            `json:"image,omitempty"`
	Env           []envVar          `json:"env,omitempty"`
	EnvFrom       []json.RawMessage `json:"envFrom,omitempty"`
	Command       []string          `json:"command,omitempty"`
	Args          []string          `json:"args,omitempty"`
	WorkingDir    string            `json:"workingDir,omitempty"`
	VolumeMounts  []volumeMount     `json:"volumeMounts,omitempty"`
	Resources     *resources        `json:"resources,omitempty"`
	RestartPolicy string            `json:"restartPolicy,omitempty"`
}

type envVar struct {
	Name      string `json:"name"`
	Value     string `json:"value,omitempty"`
	ValueFrom *struct {
		FieldRef *struct {
			APIVersion string `json:"apiVersion,omitempty"`
			FieldPath  string `json:"fieldPath"`
		} `json:"fieldRef,omitempty"`
		SecretKeyRef *struct {
			Name     string `json:"name"`
			Key      string `json:"key"`
			Optional *bool  `json:"optional,omitempty"`
		} `json:"secretKeyRef,omitempty"`
	} `json:"valueFrom,omitempty"`
}

type resources struct {
	Requests map[string]string `json:"requests,omitempty"`
	Limits   map[string]string `json:"limits,omitempty"`
}

type volume struct {
	Name                  string `json:"name"`
	PersistentVolumeClaim *struct {
		ClaimName string `json:"claimName"`
		ReadOnly  bool   `json:"readOnly,omitempty"`
	} `json:"persistentVolumeClaim,omitempty"`
	EmptyDir *struct {
		Medium    string `json:"medium,omitempty"`
		SizeLimit string `json:"sizeLimit,omitempty"`
	} `json:"emptyDir,omitempty"`
}

type volumeMount struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
	SubPath   string `json:"subPath,omitempty"`
}

// decodeStrict reads one YAML document into v, refusing unknown fields.
func decodeStrict(t *testing.T, file string, v any) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// helperFlags lists the flags `xk6-llmstream helper` defines, from its -h output.
func helperFlags(t *testing.T) map[string]bool {
	t.Helper()
	xk6, _ := bins(t)
	out, _ := exec.Command(xk6, "helper", "-h").CombinedOutput()
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	if !flags["addr"] || !flags["allow"] {
		t.Fatalf("could not read the helper's flags from its -h output:\n%s", out)
	}
	return flags
}

func TestTestRunManifest(t *testing.T) {
	var tr testRun
	decodeStrict(t, "k6-operator/testrun.yaml", &tr)
	var pvc struct {
		APIVersion string     `json:"apiVersion"`
		Kind       string     `json:"kind"`
		Metadata   objectMeta `json:"metadata"`
		Spec       struct {
			AccessModes []string  `json:"accessModes"`
			Resources   resources `json:"resources"`
		} `json:"spec"`
	}
	decodeStrict(t, "k6-operator/results-pvc.yaml", &pvc)

	if tr.APIVersion != "k6.io/v1alpha1" || tr.Kind != "TestRun" || tr.Metadata.Name == "" {
		t.Errorf("apiVersion %q kind %q name %q, want k6.io/v1alpha1 TestRun with a name", tr.APIVersion, tr.Kind, tr.Metadata.Name)
	}
	s := tr.Spec
	if s.Parallelism < 2 {
		t.Errorf("parallelism %d: the example is for several runner pods", s.Parallelism)
	}
	if s.Script.ConfigMap == nil || s.Script.ConfigMap.Name == "" || s.Script.ConfigMap.File != "script.js" {
		t.Errorf("script: want configMap with file script.js (the starter `xk6-llmstream init` writes), got %+v", s.Script)
	}
	env := map[string]envVar{}
	for _, e := range s.Runner.Env {
		env[e.Name] = e
	}

	// k6's arguments: the operator adds the segments and instance_id itself.
	argv := strings.Fields(s.Arguments)
	joined := " " + strings.Join(argv, " ") + " "
	for _, own := range []string{"--execution-segment", "--execution-segment-sequence", "instance_id=", "--paused", "--address"} {
		if strings.Contains(joined, own) {
			t.Errorf("arguments hold %q, which k6-operator adds to each runner itself", own)
		}
	}
	mounts := map[string]string{}
	for _, m := range s.Runner.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	volumes := map[string]volume{}
	for _, v := range s.Runner.Volumes {
		volumes[v.Name] = v
	}
	var jsonOut, rwOut bool
	for i, a := range argv {
		if a != "--out" || i+1 >= len(argv) {
			continue
		}
		o := argv[i+1]
		switch {
		case strings.HasPrefix(o, "json="):
			jsonOut = true
			file := strings.TrimPrefix(o, "json=")
			if !strings.Contains(file, "$(POD_NAME)") {
				t.Errorf("--out %s: each pod needs its own file name, e.g. $(POD_NAME)", o)
			}
			vol, ok := mounts[path.Dir(file)]
			if !ok {
				t.Errorf("--out %s: %s is not a runner volumeMount (%v)", o, path.Dir(file), mounts)
			} else if v := volumes[vol]; v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != pvc.Metadata.Name {
				t.Errorf("volume %s: want the claim %s of results-pvc.yaml, got %+v", vol, pvc.Metadata.Name, v)
			}
		case o == "experimental-prometheus-rw":
			rwOut = true
			if env["K6_PROMETHEUS_RW_SERVER_URL"].Value == "" {
				t.Error("experimental-prometheus-rw without K6_PROMETHEUS_RW_SERVER_URL in runner.env")
			}
		}
	}
	if !jsonOut || !rwOut {
		t.Errorf("arguments %q: want --out json=... and --out experimental-prometheus-rw", s.Arguments)
	}
	// Every $(VAR) Kubernetes expands must be defined in runner.env.
	for _, m := range regexp.MustCompile(`\$\((\w+)\)`).FindAllStringSubmatch(s.Arguments, -1) {
		if _, ok := env[m[1]]; !ok {
			t.Errorf("arguments use $(%s), which runner.env does not define", m[1])
		}
	}
	if e := env["POD_NAME"]; e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "metadata.name" {
		t.Errorf("POD_NAME must come from the downward API (fieldRef metadata.name): %+v", e)
	}
	if e := env["LLM_API_KEY"]; e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
		t.Errorf("LLM_API_KEY must come from a Secret, never a literal value")
	}

	// The helper: one native sidecar on loopback, reached through LLMSTREAM_HELPER.
	if len(s.Runner.InitContainers) != 1 {
		t.Fatalf("want one init container (the helper), got %d", len(s.Runner.InitContainers))
	}
	h := s.Runner.InitContainers[0]
	if h.RestartPolicy != "Always" {
		t.Errorf("helper restartPolicy %q: a native sidecar needs Always", h.RestartPolicy)
	}
	if len(h.Command) != 1 || h.Command[0] != "xk6-llmstream" || len(h.Args) == 0 || h.Args[0] != "helper" {
		t.Fatalf("helper command %q args %q, want xk6-llmstream helper ...", h.Command, h.Args)
	}
	if h.Image != s.Runner.Image {
		t.Errorf("helper image %q, runner image %q: one image holds k6 and the helper of the same version", h.Image, s.Runner.Image)
	}
	known := helperFlags(t)
	given := map[string][]string{}
	for _, a := range h.Args[1:] {
		name, value, ok := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !ok {
			t.Errorf("helper argument %q: write flags as --name=value", a)
			continue
		}
		if !known[name] {
			t.Errorf("helper flag --%s does not exist (xk6-llmstream helper -h)", name)
		}
		given[name] = append(given[name], value)
	}
	if len(given["addr"]) != 1 {
		t.Fatalf("helper needs one --addr, got %v", given["addr"])
	}
	host, port, err := net.SplitHostPort(given["addr"][0])
	if err != nil || host != "127.0.0.1" {
		t.Errorf("helper --addr %q: want 127.0.0.1:PORT (loopback, no token needed)", given["addr"][0])
	}
	hu, err := url.Parse(env["LLMSTREAM_HELPER"].Value)
	if err != nil || hu.Hostname() != "127.0.0.1" || hu.Port() != port {
		t.Errorf("LLMSTREAM_HELPER %q does not point at the helper's --addr %s", env["LLMSTREAM_HELPER"].Value, given["addr"][0])
	}
	bu, err := url.Parse(env["LLM_BASE_URL"].Value)
	if err != nil || bu.Host == "" {
		t.Fatalf("LLM_BASE_URL %q", env["LLM_BASE_URL"].Value)
	}
	allowed := false
	for _, v := range given["allow"] {
		for _, h := range strings.Split(v, ",") {
			allowed = allowed || h == bu.Host || h == bu.Hostname()
		}
	}
	if !allowed {
		t.Errorf("the helper's --allow %v does not admit LLM_BASE_URL's host %s", given["allow"], bu.Host)
	}
}
