package serverstats

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// BenchmarkStampingLag measures what scraping a hostile /metrics page does
// to the helper's stamping: 4 goroutines each wake every millisecond (as a
// stream's reads do) and note how late they woke, while
//
//   - idle: nothing is scraped;
//   - bounded: a Sampler scrapes a page of junk samples that never ends
//     (every 10 ms), under this package's limits;
//   - unbounded: the same page cut at 16 MiB is parsed whole by expfmt in a
//     loop, as the scraper did before the limits.
//
// It prints the wake-up lag's p50, p99 and max (µs) and the scrapes done:
//
//	go test -run '^$' -bench StampingLag -benchtime 8000x -count 3 ./xk6-llmstream/serverstats/
func BenchmarkStampingLag(b *testing.B) {
	junk := "junk_metric{a=\"padding padding padding\",b=\"more padding\"} 1\n"
	page := func(limit int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			for n := 0; limit == 0 || n < limit; {
				k, err := io.WriteString(w, junk)
				if err != nil {
					return
				}
				n += k
			}
		}
	}
	for _, mode := range []string{"idle", "bounded", "unbounded"} {
		b.Run(mode, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			var bg sync.WaitGroup
			scrapes := 0
			var stop func()
			switch mode {
			case "bounded":
				ts := httptest.NewServer(page(0))
				defer ts.Close()
				s, err := StartSampler(ts.URL, 10*time.Millisecond)
				if err != nil {
					b.Fatal(err)
				}
				stop = func() { st := s.Stop(); scrapes = int(st.Scrapes + st.Errors) }
			case "unbounded":
				ts := httptest.NewServer(page(16 << 20))
				defer ts.Close()
				bg.Go(func() {
					for ctx.Err() == nil {
						req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
						resp, err := ts.Client().Do(req)
						if err != nil {
							continue
						}
						p := expfmt.NewTextParser(model.UTF8Validation)
						_, _ = p.TextToMetricFamilies(resp.Body)
						resp.Body.Close()
						scrapes++
					}
				})
			}
			lags := stampingLags(b)
			cancel()
			bg.Wait()
			if stop != nil {
				stop()
			}
			b.StopTimer()
			slices.Sort(lags)
			us := func(d time.Duration) float64 { return float64(d) / 1e3 }
			b.ReportMetric(us(lags[len(lags)/2]), "p50-lag-µs")
			b.ReportMetric(us(lags[len(lags)*99/100]), "p99-lag-µs")
			b.ReportMetric(us(lags[len(lags)-1]), "max-lag-µs")
			b.ReportMetric(float64(scrapes), "scrapes")
		})
	}
}

// stampingLags runs b.N wake-ups spread over 4 goroutines, each due 1 ms
// after the last, and returns how late each one was.
func stampingLags(b *testing.B) []time.Duration {
	const workers = 4
	per := max(b.N/workers, 1)
	out := make([][]time.Duration, workers)
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := range workers {
		wg.Go(func() {
			lags := make([]time.Duration, 0, per)
			due := time.Now()
			for range per {
				due = due.Add(time.Millisecond)
				time.Sleep(time.Until(due))
				late := time.Since(due)
				lags = append(lags, late)
				if late > 0 {
					due = time.Now() // a late wake-up does not make the next ones late
				}
			}
			out[w] = lags
		})
	}
	wg.Wait()
	return slices.Concat(out...)
}
