package server_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// TestBinaryBodyRoundTrip sends every byte value to a function taking its
// whole body as bytea and returning it as application/octet-stream: the
// answer is the body, byte for byte (PostgreSQL sends it hex-encoded, the
// server decodes it), with no charset and no text conversion on the way.
func TestBinaryBodyRoundTrip(t *testing.T) {
	body := make([]byte, 0, 512)
	for i := range 512 {
		body = append(body, byte(i*7))
	}
	req, err := http.NewRequest("POST", fixture.url+"/rpc/mh_echo_bytes", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("Accept", "application/octet-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("status %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), got)
	}
	if !bytes.Equal(got, body) {
		t.Errorf("body changed on the way:\n got %x\nwant %x", got, body)
	}
}
