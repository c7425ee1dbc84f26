package vlnode

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func need(t *testing.T) string {
	t.Helper()
	bin := Binary()
	if bin == "" {
		msg := "victoria-logs is not installed (scripts/need-victoria-logs)"
		if os.Getenv("MCPLOGD_REQUIRE_VICTORIALOGS") == "1" || os.Getenv("MCPLOGD_REQUIRE_EVERYTHING") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

func TestStart_OK(t *testing.T) {
	bin := need(t)
	n, err := Start(context.Background(), bin, filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(n.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n.PID() <= 0 {
		t.Errorf("PID = %d", n.PID())
	}
	n.Stop()
	n.Stop()
	if _, err := http.Get(n.URL + "/health"); err == nil {
		t.Error("/health still answers after Stop")
	}
	if _, err := os.Stat(n.DataPath); err != nil {
		t.Errorf("data path: %v", err)
	}
}

func TestStart_ErrExited(t *testing.T) {
	bin := need(t)
	_, err := Start(context.Background(), bin, filepath.Join(t.TempDir(), "data"), "-no-such-flag")
	if !errors.Is(err, ErrExited) {
		t.Fatalf("Start with a bad flag: %v, want ErrExited", err)
	}
}
