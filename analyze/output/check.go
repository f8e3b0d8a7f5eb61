package output

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/llmstream/xk6-llmstream/analyze/result"
)

// WriteCheck writes check results in a format: text, markdown, json or junit.
func WriteCheck(w io.Writer, format string, r *result.CheckReport) error {
	switch format {
	case JSON:
		return writeJSON(w, r)
	case JUnit:
		return writeJUnit(w, r)
	case Text, Markdown:
		ew := &errWriter{w: w}
		checkTable(ew, format, r)
		return ew.err
	}
	return fmt.Errorf("output: checks cannot be written as %q", format)
}

// Verdict is a check's one-line result: "p(95) = 812.40 ms, want < 800".
func Verdict(c result.CheckResult) string {
	if c.Observed == nil {
		return c.Reason
	}
	return fmt.Sprintf("%s = %s over %d samples, want %s %s", c.Aggregate, withUnit(Number(*c.Observed), c.Unit),
		c.Count, c.Operator, Number(c.Limit))
}

func checkTable(w *errWriter, format string, r *result.CheckReport) {
	md := format == Markdown
	t := &table{header: []string{"result", "check", "observed", "samples"}, right: []bool{false, false, true, true}}
	for _, c := range r.Checks {
		res := "PASS"
		if !c.Passed {
			res = "FAIL"
		}
		obs := "no data"
		if c.Observed != nil {
			obs = withUnit(Number(*c.Observed), c.Unit)
		}
		t.add(res, c.Check, obs, Number(float64(c.Count)))
	}
	if md {
		w.printf("## analyze check\n\n%s\n\n", inputsLine(r.Inputs, r.Selection, true))
		t.markdown(w)
	} else {
		t.text(w)
	}
	w.printf("\n")
	for _, c := range r.Checks {
		if !c.Passed {
			if md {
				w.printf("- **FAIL** `%s`: %s\n", c.Check, Verdict(c))
			} else {
				w.printf("FAIL %s: %s\n", c.Check, Verdict(c))
			}
		}
	}
	if md && r.Failed > 0 {
		w.printf("\n")
	}
	if r.Failed == 0 {
		w.printf("all %d checks passed\n", r.Passed)
	} else {
		w.printf("%d of %d checks failed\n", r.Failed, r.Failed+r.Passed)
	}
}

// JUnit XML: one test suite, one test case per check. A failed check has a
// <failure> with the observed value and the limit.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

func writeJUnit(w io.Writer, r *result.CheckReport) error {
	suite := junitSuite{Name: "analyze check", Tests: len(r.Checks), Failures: r.Failed}
	for _, in := range r.Inputs {
		suite.Properties = append(suite.Properties, junitProperty{Name: "input", Value: in.Path})
	}
	for _, c := range r.Checks {
		tc := junitCase{Classname: c.Metric, Name: c.Check, SystemOut: Verdict(c)}
		if !c.Passed {
			typ := "threshold"
			if c.Observed == nil {
				typ = "no-data"
			}
			var b strings.Builder
			fmt.Fprintf(&b, "check:    %s\n", c.Check)
			if c.Observed != nil {
				fmt.Fprintf(&b, "observed: %s = %v %s (%d samples)\n", c.Aggregate, *c.Observed, c.Unit, c.Count)
			} else {
				fmt.Fprintf(&b, "observed: %s\n", c.Reason)
			}
			fmt.Fprintf(&b, "limit:    %s %s %v\n", c.Aggregate, c.Operator, c.Limit)
			tc.Failure = &junitFailure{Message: Verdict(c), Type: typ, Text: b.String()}
		}
		suite.Cases = append(suite.Cases, tc)
	}
	doc := junitSuites{Name: "analyze check", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
