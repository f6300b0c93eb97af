package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/clock"
)

// fastReceivers starts n loopback receivers answering 204 at once and
// calling got with the event's seq.
func fastReceivers(b *testing.B, n int, got func(seq int)) []string {
	var urls []string
	for i := 0; i < n; i++ {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var env struct {
				Data struct {
					Seq int `json:"seq"`
				} `json:"data"`
			}
			_ = json.Unmarshal(body, &env)
			w.WriteHeader(http.StatusNoContent)
			got(env.Data.Seq)
		}))
		b.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	return urls
}

// BenchmarkDeliveryThroughput measures deliveries per second from the
// durable queue to fast local receivers: b.N events are queued first (100
// per transaction), then the dispatcher drains them; each delivery is one
// HTTP POST plus one fsynced store commit recording the outcome.
func BenchmarkDeliveryThroughput(b *testing.B) {
	for _, endpoints := range []int{1, 8} {
		b.Run(fmt.Sprintf("endpoints=%d", endpoints), func(b *testing.B) {
			var done atomic.Int64
			all := make(chan struct{})
			e := newEnv(b, func(c *Config) {
				c.Clock = clock.System{}
				c.PollInterval = time.Millisecond
				c.OnAttempt = func(AttemptResult) {
					if done.Add(1) == int64(b.N) {
						close(all)
					}
				}
			})
			urls := fastReceivers(b, endpoints, func(int) {})
			var accts []string
			for i, u := range urls {
				acct := fmt.Sprintf("acct-%d", i)
				e.create(acct, u, nil)
				accts = append(accts, acct)
			}
			for i := 0; i < b.N; i += 100 {
				err := e.st.Update(context.Background(), func(tx store.Txn) error {
					for j := i; j < min(i+100, b.N); j++ {
						ev := events.Event{Type: events.ContentSigned, Time: time.Now(), Accounts: []string{accts[j%len(accts)]},
							Data: json.RawMessage(fmt.Sprintf(`{"seq":%d}`, j))}
						if err := e.svc.Publish(tx, ev); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			start := time.Now()
			e.svc.Start()
			<-all
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "deliveries/s")
		})
	}
}

// BenchmarkDeliveryLatency measures the time from the commit of the
// transaction that published an event (store.Update returned) to the
// receipt of its delivery by a fast local receiver, one event at a time.
func BenchmarkDeliveryLatency(b *testing.B) {
	var mu sync.Mutex
	received := map[int]time.Time{}
	arrived := make(chan int, 16)
	e := newEnv(b, func(c *Config) { c.Clock = clock.System{} })
	urls := fastReceivers(b, 1, func(seq int) {
		mu.Lock()
		received[seq] = time.Now()
		mu.Unlock()
		arrived <- seq
	})
	e.create("acct", urls[0], nil)
	e.svc.Start()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := events.Event{Type: events.ContentSigned, Time: time.Now(), Accounts: []string{"acct"},
			Data: json.RawMessage(fmt.Sprintf(`{"seq":%d}`, i))}
		if err := e.st.Update(context.Background(), func(tx store.Txn) error { return e.svc.Publish(tx, ev) }); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		for seq := range arrived {
			if seq == i {
				break
			}
		}
		mu.Lock()
		lat = append(lat, max(0, received[i].Sub(committed)))
		mu.Unlock()
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}
