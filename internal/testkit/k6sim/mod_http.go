package k6sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/grafana/sobek"
)

// DefaultHTTPTimeout is k6's default request timeout.
const DefaultHTTPTimeout = 60 * time.Second

// httpModule provides k6/http: request, get, post, put, patch, del, head,
// options and asyncRequest.
func (v *vu) httpModule() *nativeModule {
	rt := v.rt
	fns := map[string]sobek.Value{
		"request": rt.ToValue(func(c sobek.FunctionCall) sobek.Value {
			return v.syncRequest(c.Argument(0).String(), c.Argument(1), c.Argument(2), c.Argument(3))
		}),
		"asyncRequest": rt.ToValue(v.asyncRequest),
		"get": rt.ToValue(func(c sobek.FunctionCall) sobek.Value {
			return v.syncRequest("GET", c.Argument(0), sobek.Undefined(), c.Argument(1))
		}),
		"head": rt.ToValue(func(c sobek.FunctionCall) sobek.Value {
			return v.syncRequest("HEAD", c.Argument(0), sobek.Undefined(), c.Argument(1))
		}),
	}
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		method := m
		name := strings.ToLower(m)
		if m == "DELETE" {
			name = "del"
		}
		fns[name] = rt.ToValue(func(c sobek.FunctionCall) sobek.Value {
			return v.syncRequest(method, c.Argument(0), c.Argument(1), c.Argument(2))
		})
	}
	def := rt.NewObject()
	b := map[string]func() sobek.Value{"default": func() sobek.Value { return def }}
	for name, f := range fns {
		_ = def.Set(name, f)
		b[name] = func() sobek.Value { return f }
	}
	return &nativeModule{name: "k6/http", bindings: b}
}

// httpRequest is a request prepared on the VU's goroutine.
type httpRequest struct {
	method  string
	url     string
	body    []byte
	header  http.Header
	timeout time.Duration
	tags    map[string]string
	meta    map[string]string
	discard bool // responseType: 'none'
}

// httpResponse is what came back, before it is turned into a JS object.
type httpResponse struct {
	status   int
	proto    string
	header   http.Header
	body     []byte
	err      string
	errCode  int
	duration time.Duration
	waiting  time.Duration
	url      string
}

func (v *vu) prepare(method string, urlV, body, params sobek.Value) *httpRequest {
	rt := v.rt
	if v.inInit {
		panic(rt.NewGoError(errors.New("making HTTP requests in the init context is not supported")))
	}
	u := urlV.String()
	if _, err := url.ParseRequestURI(u); err != nil {
		panic(rt.NewGoError(fmt.Errorf("invalid URL %q: %w", u, err)))
	}
	req := &httpRequest{method: strings.ToUpper(method), url: u, header: http.Header{}, timeout: DefaultHTTPTimeout}
	if body != nil && !sobek.IsUndefined(body) && !sobek.IsNull(body) {
		switch x := body.Export().(type) {
		case string:
			req.body = []byte(x)
		case sobek.ArrayBuffer:
			req.body = x.Bytes()
		case []byte:
			req.body = x
		case map[string]any:
			form := url.Values{}
			for k, val := range x {
				form.Set(k, fmt.Sprint(val))
			}
			req.body = []byte(form.Encode())
			req.header.Set("Content-Type", "application/x-www-form-urlencoded")
		default:
			req.body = []byte(body.String())
		}
	}
	var userTags map[string]string
	if params != nil && !sobek.IsUndefined(params) && !sobek.IsNull(params) {
		p := params.ToObject(rt)
		if h := p.Get("headers"); h != nil && !sobek.IsUndefined(h) && !sobek.IsNull(h) {
			ho := h.ToObject(rt)
			for _, k := range ho.Keys() {
				req.header.Set(k, ho.Get(k).String())
			}
		}
		if t := p.Get("timeout"); t != nil && !sobek.IsUndefined(t) && !sobek.IsNull(t) {
			d, err := durationParam(t.Export())
			if err != nil || d <= 0 {
				panic(rt.NewGoError(fmt.Errorf("http params.timeout: %s is not a positive duration", t.String())))
			}
			req.timeout = d
		}
		if rtp := p.Get("responseType"); rtp != nil && rtp.String() == "none" {
			req.discard = true
		}
		userTags = v.callTags(p.Get("tags"), "http_reqs")
	}
	// k6's order: VU tags, then the request's own tags, then params.tags. A
	// `name` tag also replaces the url tag, which keeps URLs out of the tags.
	sys := map[string]string{"method": req.method, "url": u, "name": u}
	if n, ok := userTags["name"]; ok {
		sys["url"] = n
	}
	req.tags = v.sampleTags(sys)
	for k, val := range userTags {
		req.tags[k] = val
	}
	req.meta = v.metadata()
	return req
}

// do sends the request; it runs on any goroutine.
func (r *run) do(req *httpRequest) *httpResponse {
	ctx, cancel := context.WithTimeout(r.ctx, req.timeout)
	defer cancel()
	res := &httpResponse{url: req.url}
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, req.url, body)
	if err != nil {
		res.err, res.errCode = err.Error(), 1000
		return res
	}
	hr.Header = req.header
	start := time.Now()
	resp, err := r.client.Do(hr)
	if err != nil {
		res.duration = time.Since(start)
		res.err, res.errCode = classify(ctx, err)
		return res
	}
	res.waiting = time.Since(start)
	res.status = resp.StatusCode
	res.proto = resp.Proto
	res.header = resp.Header
	if req.discard {
		_, err = io.Copy(io.Discard, resp.Body)
	} else {
		res.body, err = io.ReadAll(resp.Body)
	}
	_ = resp.Body.Close()
	res.duration = time.Since(start)
	if err != nil {
		res.err, res.errCode = classify(ctx, err)
	}
	return res
}

// classify maps an error to a k6-like message and error code (1050 request
// timeout, 1212 connection refused, 1000 anything else).
func classify(ctx context.Context, err error) (string, int) {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return "request timeout", 1050
	case errors.Is(err, syscall.ECONNREFUSED):
		return "dial: connection refused", 1212
	case errors.Is(err, context.Canceled):
		return "context canceled", 1000
	}
	return err.Error(), 1000
}

// record adds http_reqs, http_req_duration and http_req_failed samples.
func (r *run) record(vuID int, req *httpRequest, res *httpResponse) {
	tags := make(map[string]string, len(req.tags)+4)
	for k, val := range req.tags {
		tags[k] = val
	}
	expected := res.status >= 200 && res.status <= 399
	tags["status"] = fmt.Sprint(res.status)
	tags["expected_response"] = fmt.Sprint(expected)
	if res.err != "" {
		tags["error"] = res.err
		tags["error_code"] = fmt.Sprint(res.errCode)
	}
	now := time.Now()
	add := func(name string, typ MetricType, isTime bool, val float64) {
		mi, _ := r.metrics.declare(name, typ, isTime)
		r.out.add(Sample{Metric: mi.Name, Type: typ, IsTime: isTime, Value: val, Tags: tags, Metadata: req.meta, Time: now, VU: vuID})
	}
	add("http_reqs", Counter, false, 1)
	add("http_req_duration", Trend, true, float64(res.duration)/float64(time.Millisecond))
	failed := 1.0
	if expected {
		failed = 0
	}
	add("http_req_failed", Rate, false, failed)
}

// responseObject builds the JS Response.
func (v *vu) responseObject(req *httpRequest, res *httpResponse) sobek.Value {
	rt := v.rt
	o := rt.NewObject()
	_ = o.Set("status", res.status)
	_ = o.Set("proto", res.proto)
	_ = o.Set("url", res.url)
	_ = o.Set("error", res.err)
	_ = o.Set("error_code", res.errCode)
	if res.body == nil || req.discard {
		_ = o.Set("body", sobek.Null())
	} else {
		_ = o.Set("body", string(res.body))
	}
	h := rt.NewObject()
	keys := make([]string, 0, len(res.header))
	for k := range res.header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		_ = h.Set(k, strings.Join(res.header[k], ", "))
	}
	_ = o.Set("headers", h)
	t := rt.NewObject()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	_ = t.Set("duration", ms(res.duration))
	_ = t.Set("waiting", ms(res.waiting))
	_ = t.Set("receiving", ms(res.duration-res.waiting))
	for _, k := range []string{"blocked", "connecting", "tls_handshaking", "sending", "looking_up"} {
		_ = t.Set(k, 0)
	}
	_ = o.Set("timings", t)
	body := res.body
	_ = o.Set("json", func(c sobek.FunctionCall) sobek.Value {
		if a := c.Argument(0); !sobek.IsUndefined(a) {
			panic(rt.NewGoError(errors.New("response.json(selector): selectors are not simulated")))
		}
		if body == nil {
			panic(rt.NewGoError(errors.New("response.json(): the response has no body")))
		}
		val, err := v.parseJSON(body)
		if err != nil {
			panic(err)
		}
		return val
	})
	return o
}

func (v *vu) syncRequest(method string, urlV, body, params sobek.Value) sobek.Value {
	req := v.prepare(method, urlV, body, params)
	res := v.r.do(req)
	v.r.record(v.id, req, res)
	if res.err != "" {
		v.r.log(fmt.Sprintf("WARN  [VU %d] Request Failed: %s %s: %s", v.id, req.method, req.tags["url"], res.err))
	}
	return v.responseObject(req, res)
}

// asyncRequest returns a promise of the response; the request runs on its own
// goroutine and the promise is resolved from the VU's event loop.
func (v *vu) asyncRequest(c sobek.FunctionCall) sobek.Value {
	rt := v.rt
	p, resolve, reject := rt.NewPromise()
	var req *httpRequest
	err := v.guard(func() error {
		req = v.prepare(c.Argument(0).String(), c.Argument(1), c.Argument(2), c.Argument(3))
		return nil
	})
	if err != nil {
		_ = reject(rt.NewGoError(err))
		return rt.ToValue(p)
	}
	v.goAsync(func() func() error {
		res := v.r.do(req)
		v.r.record(v.id, req, res)
		return func() error {
			if res.err != "" {
				v.r.log(fmt.Sprintf("WARN  [VU %d] Request Failed: %s %s: %s", v.id, req.method, req.tags["url"], res.err))
			}
			return resolve(v.responseObject(req, res))
		}
	})
	return rt.ToValue(p)
}
