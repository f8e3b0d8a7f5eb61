package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmstream/xk6-llmstream/xk6-llmstream/runner"
)

// e2eKey travels everywhere a key can travel. Its '+', '/', '=' and '~' make
// its percent-encoded, base64 and JSON forms differ from it.
const e2eKey = "e2eK3y+0123456789/ABCdef=_~xyz"

// keyForms are the encodings a leak could take: none of them may appear.
func keyForms() map[string]string {
	j, _ := json.Marshal(e2eKey)
	return map[string]string{
		"plain":            e2eKey,
		"query-escaped":    url.QueryEscape(e2eKey),
		"path-escaped":     url.PathEscape(e2eKey),
		"%20 for space":    strings.ReplaceAll(url.QueryEscape(e2eKey), "+", "%20"),
		"lower-case hex":   strings.ToLower(url.QueryEscape(e2eKey)),
		"base64":           base64.StdEncoding.EncodeToString([]byte(e2eKey)),
		"base64url":        base64.URLEncoding.EncodeToString([]byte(e2eKey)),
		"basic user:key":   base64.StdEncoding.EncodeToString([]byte("user:" + e2eKey)),
		"basic key:":       base64.StdEncoding.EncodeToString([]byte(e2eKey + ":")),
		"basic key: url":   base64.URLEncoding.EncodeToString([]byte(e2eKey + ":")),
		"basic key: raw":   base64.RawStdEncoding.EncodeToString([]byte(e2eKey + ":")),
		"json-escaped":     string(j[1 : len(j)-1]),
		"html-escaped '+'": strings.ReplaceAll(e2eKey, "+", "\\u002b"),
		"distinct middle":  "0123456789/ABCdef", // a cut message keeps no recognisable part either
	}
}

// The key-hygiene end-to-end test (issue 11, item 4): one unique key in every
// place a key can travel (Authorization, api-key, x-api-key, x-goog-api-key,
// ?key= plain and encoded, user info, a path segment), through the mock, the
// runner with real k6, the helper with --verbose, and analyze; then every
// artefact is searched for the key in every encoding. Needs real k6 (K6_BIN or
// k6 on PATH) and the go tool (to build analyze).
func TestKeyNeverLeaksEndToEnd(t *testing.T) {
	k6 := realK6Bins(t)[0]
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build analyze")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	analyze := filepath.Join(dir, "bin", "analyze")
	if out, err := exec.Command(goTool, "build", "-o", analyze, "../analyze").CombinedOutput(); err != nil {
		t.Fatalf("building analyze: %v\n%s", err, out)
	}

	// The mock, as its own process, requiring the key, logging every request.
	mockLog := filepath.Join(dir, "mock-requests.jsonl")
	mock := exec.Command(self, "mock", "--addr", "127.0.0.1:0", "--api-key", e2eKey, "--log", mockLog, "--output-tokens", "6", "--itl", "1ms", "--prefill", "1ms")
	mock.Env = append(os.Environ(), asMainEnv+"=1")
	mockErr, err := os.Create(filepath.Join(dir, "mock.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	mock.Stderr = mockErr
	mockOut, _ := mock.StdoutPipe()
	if err := mock.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(mockOut)
	if !sc.Scan() {
		t.Fatal("the mock printed no URL")
	}
	mockURL := strings.TrimSpace(sc.Text())
	defer func() {
		_ = mock.Process.Signal(os.Interrupt)
		_ = mock.Wait()
		mockErr.Close()
	}()

	// An upstream that echoes the credentials it receives, raw and decoded
	// (a careless gateway): for a key as the URL's user name alone (sent as
	// Basic base64("key:")) and a custom Basic header.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := r.Header.Get("Authorization")
		_, creds, _ := strings.Cut(a, " ")
		dec, _ := base64.StdEncoding.DecodeString(creds)
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "no: %s (%s)", a, dec)
	}))
	defer echo.Close()
	t.Setenv("ECHO_USER_URL", "http://"+url.User(e2eKey).String()+"@"+strings.TrimPrefix(echo.URL, "http://")+"/v1")
	t.Setenv("ECHO_URL", echo.URL+"/v1")
	t.Setenv("KEY_BASIC", "Basic "+base64.StdEncoding.EncodeToString([]byte("gw-user:"+e2eKey)))

	host := strings.TrimPrefix(mockURL, "http://")
	withUser := "http://user:" + url.PathEscape(e2eKey) + "@" + host
	script := filepath.Join(dir, "keys.js")
	module, err := filepath.Abs("js/llmstream.js")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(strings.Replace(keysScript, "MODULE", "file://"+module, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "k6.json")
	summary := filepath.Join(dir, "summary.json")
	var stdout, stderr syncBuffer // k6's output and the runner's logs arrive concurrently
	t.Setenv(runner.K6BinEnv, k6)
	t.Setenv(runner.BaseURLEnv, withUser+"/v1?key="+url.QueryEscape(e2eKey))
	t.Setenv("LLM_API_KEY", e2eKey)
	t.Setenv("KEY_PATH_URL", withUser+"/"+url.PathEscape(e2eKey)+"/v1")
	t.Setenv("KEY_QUERY", "?key="+e2eKey+"&api-key="+url.QueryEscape(e2eKey)+"&k2="+url.PathEscape(e2eKey))
	code := realMain([]string{"run", "--verbose", "--records", filepath.Join(dir, "records.jsonl"), script, "--no-color", "--out", "json=" + out, "--summary-export", summary}, nil, &stdout, &stderr)
	if code != 0 {
		t.Errorf("run exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	writeFile(t, filepath.Join(dir, "run.stdout"), []byte(stdout.String()))
	writeFile(t, filepath.Join(dir, "run.stderr"), []byte(stderr.String()))

	for i, args := range [][]string{
		{"summary", out},
		{"summary", "--format", "json", out},
		{"summary", "--format", "markdown", out},
		{"check", out, "--check", "llm_ttft: p(50)<60000"},
		{"plot", out, "-o", filepath.Join(dir, "plot.svg")},
		{"report", out, "-o", filepath.Join(dir, "report")},
		{"summary", filepath.Join(dir, "records.jsonl")},
	} {
		cmd := exec.Command(analyze, args...)
		b, err := cmd.CombinedOutput()
		writeFile(t, filepath.Join(dir, "analyze-"+args[0]+"-"+string(rune('a'+i))+".out"), b)
		if err != nil {
			t.Logf("analyze %v: %v\n%s", args, err, b)
		}
	}
	_ = mock.Process.Signal(os.Interrupt)
	_ = mock.Wait()

	// Every request of the script reached the mock with the key, so the test
	// did put the key where it meant to.
	if b, err := os.ReadFile(mockLog); err != nil || bytes.Count(b, []byte("\n")) < 3 {
		t.Errorf("the mock logged %d requests (%v), want ≥ 3 (the path-segment request is a 404)", bytes.Count(b, []byte("\n")), err)
	}
	if rec, err := os.ReadFile(filepath.Join(dir, "records.jsonl")); err != nil || bytes.Count(rec, []byte("\n")) != 8 {
		t.Errorf("the records file holds %d lines (%v), want the header, 6 records and the trailer", bytes.Count(rec, []byte("\n")), err)
	}
	if strings.Count(stderr.String(), "msg=stream") != 6 || !strings.Contains(stderr.String(), "http_404") {
		t.Errorf("no --verbose stream logs in the runner's stderr:\n%s", stderr.String())
	}
	searchArtefacts(t, dir)
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// searchArtefacts greps every file under dir (but the script and the built
// binary) for every form of the key.
func searchArtefacts(t *testing.T, dir string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "keys.js") || strings.Contains(path, string(filepath.Separator)+"bin"+string(filepath.Separator)) {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for name, form := range keyForms() {
			if i := bytes.Index(b, []byte(form)); i >= 0 {
				lo, hi := max(0, i-120), min(len(b), i+len(form)+40)
				t.Errorf("%s holds the key (%s) at byte %d: …%s…", filepath.Base(path), name, i, b[lo:hi])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 8 {
		t.Errorf("searched %d artefacts, want ≥ 8", files)
	}
}

// keysScript sends the key every way: Authorization (apiKey), api-key,
// x-api-key and x-goog-api-key headers, the query (plain and encoded), the
// user info of LLM_BASE_URL and a path segment; and, to an upstream that
// echoes the credentials raw and decoded, as the URL's user name alone and in
// a custom Basic header. The path-segment request is
// answered 404 by the mock, whose message quotes the path: the helper must
// redact it.
const keysScript = `
import { Client } from 'MODULE';

export const options = { vus: 1, iterations: 1 };
const headers = { 'api-key': __ENV.LLM_API_KEY, 'x-goog-api-key': __ENV.LLM_API_KEY };
const base = new Client({ baseURL: __ENV.LLM_BASE_URL.split('?')[0], apiKey: __ENV.LLM_API_KEY, model: 'mock', headers: headers,
  path: '/chat/completions' + __ENV.KEY_QUERY, keepText: true });
const anthropic = new Client({ baseURL: __ENV.LLM_BASE_URL.split('?')[0], api: 'anthropic-messages', apiKey: __ENV.LLM_API_KEY,
  model: 'mock', headers: headers });
const inPath = new Client({ baseURL: __ENV.KEY_PATH_URL, apiKey: __ENV.LLM_API_KEY, model: 'mock', headers: headers });
const echoUser = new Client({ baseURL: __ENV.ECHO_USER_URL, model: 'mock' });
const echoBasic = new Client({ baseURL: __ENV.ECHO_URL, model: 'mock', headers: { Authorization: __ENV.KEY_BASIC } });
const other = new Client({ baseURL: __ENV.LLM_BASE_URL.split('?')[0], apiKey: 'not-the-key-0123456789', model: 'mock',
  headers: { 'x-api-key': __ENV.LLM_API_KEY } });

export default function () {
  for (const c of [base, anthropic, inPath, other, echoUser, echoBasic]) {
    const r = c.chat('Say ' + __ENV.LLM_API_KEY.length + ' words.', { tags: { client: c.api } });
    console.log('result', r.ok, r.errorKind, r.error ? r.error.message : '', c.endpoint.length);
  }
}
`
