package output

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/llmstream/xk6-llmstream/internal/result"
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

// Verdict is a check's one-line result: "p(95) = 812.40 ms over 300
// samples, want < 800", and for an inconclusive check why and what would
// decide it.
func Verdict(c result.CheckResult) string {
	if c.Observed == nil {
		return c.Reason
	}
	v := fmt.Sprintf("%s = %s over %d samples, want %s %s", c.Aggregate, withUnit(Number(*c.Observed), c.Unit),
		c.Count, c.Operator, Number(c.Limit))
	if c.Verdict == result.Inconclusive {
		v += "; " + strings.TrimPrefix(c.Reason, "inconclusive: ")
	}
	return v
}

// checkLabel is a check's verdict in a table: PASS, FAIL or INCONCLUSIVE.
func checkLabel(c result.CheckResult) string {
	return strings.ToUpper(string(c.Verdict))
}

// checkCI is a check's interval in a table, written as the summary writes
// a percentile's: "[1497, 2110]", "[1497, ∞)"; "" for an aggregate judged
// on its value.
func checkCI(c result.CheckResult) string {
	if c.Interval == "" {
		return ""
	}
	return ciText(result.CI{Low: c.CILow, High: c.CIHigh})
}

// CheckTally is the last line of a check report: "2 of 4 checks failed, 1
// inconclusive (...)".
func CheckTally(r *result.CheckReport) string {
	total := r.Passed + r.Failed + r.Inconclusive
	if r.Failed == 0 && r.Inconclusive == 0 {
		return fmt.Sprintf("all %d checks passed", r.Passed)
	}
	s := fmt.Sprintf("%d of %d checks failed", r.Failed, total)
	if r.Inconclusive > 0 {
		how := "they fail the gate; --allow-inconclusive accepts them"
		if r.AllowInconclusive {
			how = "accepted: --allow-inconclusive"
		}
		s += fmt.Sprintf(", %d inconclusive at %g%% confidence (%s)", r.Inconclusive, 100*r.Confidence, how)
	}
	return s
}

func checkTable(w *errWriter, format string, r *result.CheckReport) {
	md := format == Markdown
	ci := fmt.Sprintf("%g%% CI", 100*r.Confidence)
	t := &table{header: []string{"result", "check", "observed", ci, "samples"}, right: []bool{false, false, true, false, true}}
	for _, c := range r.Checks {
		obs := "no data"
		if c.Observed != nil {
			obs = withUnit(Number(*c.Observed), c.Unit)
		}
		t.add(checkLabel(c), c.Check, obs, checkCI(c), Number(float64(c.Count)))
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
				w.printf("- **%s** %s: %s\n", checkLabel(c), mdCode(c.Check, false), mdText(Verdict(c)))
			} else {
				w.printf("%s %s: %s\n", checkLabel(c), plainText(c.Check), plainText(Verdict(c)))
			}
		}
	}
	if md && r.Failed+r.Inconclusive > 0 {
		w.printf("\n")
	}
	w.printf("%s\n", CheckTally(r))
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
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// junitSkipped marks an inconclusive check accepted with --allow-inconclusive.
type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

func writeJUnit(w io.Writer, r *result.CheckReport) error {
	suite := junitSuite{Name: "analyze check", Tests: len(r.Checks), Failures: r.Failed}
	if !r.AllowInconclusive {
		suite.Failures += r.Inconclusive
	} else {
		suite.Skipped = r.Inconclusive
	}
	for _, in := range r.Inputs {
		suite.Properties = append(suite.Properties, junitProperty{Name: "input", Value: in.Path})
	}
	for _, c := range r.Checks {
		tc := junitCase{Classname: c.Metric, Name: c.Check, SystemOut: Verdict(c)}
		if c.Verdict == result.Inconclusive && r.AllowInconclusive {
			tc.Skipped = &junitSkipped{Message: Verdict(c)}
		} else if !c.Passed {
			typ := "threshold"
			switch {
			case c.Observed == nil:
				typ = "no-data"
			case c.Verdict == result.Inconclusive:
				typ = "inconclusive"
			}
			var b strings.Builder
			fmt.Fprintf(&b, "check:    %s\n", c.Check)
			if c.Observed != nil {
				fmt.Fprintf(&b, "observed: %s = %v %s (%d samples)\n", c.Aggregate, *c.Observed, c.Unit, c.Count)
			} else {
				fmt.Fprintf(&b, "observed: %s\n", c.Reason)
			}
			fmt.Fprintf(&b, "limit:    %s %s %v\n", c.Aggregate, c.Operator, c.Limit)
			if c.Interval != "" {
				fmt.Fprintf(&b, "interval: %s %s\n", c.Interval, checkCI(c))
			}
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
