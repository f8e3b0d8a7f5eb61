package stream

import (
	"context"
	"strings"
	"testing"
)

// A request URL that does not parse shows no part of its user info in the
// error: the engine's former redactURL printed all of it but its query.
func TestBadURLNeverShowsUserinfo(t *testing.T) {
	t.Parallel()
	const secret = "s3cretKEY0123456789"
	for _, raw := range []string{"http://user:" + secret + "@[::1/v1", "http//user:" + secret + "@127.0.0.1/v1"} {
		req := chatRequest("")
		req.URL = raw
		rec := NewClient().Do(context.Background(), req)
		if rec.Err == nil || rec.Err.Kind != KindInvalidRequest || strings.Contains(rec.Err.Message, secret) {
			t.Errorf("URL %q: error %+v, want %s without the secret", raw, rec.Err, KindInvalidRequest)
		}
	}
}
