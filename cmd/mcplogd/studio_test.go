package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/datadir"
	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
	"github.com/mcplogd/mcplogd/store"
)

// studioProcess is a real `mcplogd serve --studio` process.
type studioProcess struct {
	cmd   *exec.Cmd
	base  string
	token string
	errb  *syncBuffer
}

func startStudioServe(t *testing.T, bin, data string, args ...string) *studioProcess {
	t.Helper()
	p := &studioProcess{errb: &syncBuffer{}}
	p.cmd = exec.Command(bin, append([]string{"serve", "--data", data, "--addr", "127.0.0.1:0"}, args...)...)
	p.cmd.Stderr = p.errb
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	dir := &datadir.Dir{Path: data}
	logtest.Eventually(t, 20*time.Second, "the server to save its address", func() bool {
		s, _ := dir.Server()
		return s.PID == p.cmd.Process.Pid
	})
	s, _ := dir.Server()
	p.base, p.token = s.BaseURL(), readToken(t, data)
	return p
}

// metric reads one sample without labels of GET /metrics; -1 when absent.
func (p *studioProcess) metric(t *testing.T, name string) float64 {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return -1
}

// TestServe_Studio_KillNine kills a forwarding mcplogd with SIGKILL at
// random moments while it ingests, five times, then lets a last one catch
// up: VictoriaLogs must hold every record exactly once, with its text.
func TestServe_Studio_KillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	v := vltest.Start(t)
	bin := filepath.Join(t.TempDir(), "mcplogd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(t.TempDir(), "game", "mcplogd-data")
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	flags := []string{"--studio", v.URL, "--machine", "m1", "--studio-settle", "2s"}
	acked := map[uint64]string{}
	for round := range 5 {
		p := startStudioServe(t, bin, data, flags...)
		var mu sync.Mutex
		batches := 0
		done := make(chan struct{})
		go func() { // ingest until the process dies
			defer close(done)
			for i := 0; ; i++ {
				var b strings.Builder
				texts := make([]string, 200)
				for j := range texts {
					texts[j] = fmt.Sprintf("round %d batch %d line %d", round, i, j)
					fmt.Fprintf(&b, `{"level":"info","source":"game","text":%q}`+"\n", texts[j])
				}
				ids, ok := ingestIDs(p, b.String())
				if !ok {
					return
				}
				mu.Lock()
				for j, id := range ids {
					acked[id] = texts[j]
				}
				batches++
				mu.Unlock()
			}
		}()
		// The random moment: once forwarding is under way in this round
		// (VictoriaLogs acknowledged rows of it), after 0 to 15 more batches.
		seq := p.metric(t, "mcplogd_studio_rows_acknowledged_total")
		logtest.Eventually(t, 30*time.Second, "rows of this round acknowledged", func() bool {
			return p.metric(t, "mcplogd_studio_rows_acknowledged_total") > seq
		})
		mu.Lock()
		at := batches + rng.IntN(16)
		mu.Unlock()
		logtest.Eventually(t, 30*time.Second, "batches acknowledged", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return batches >= at
		})
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = p.cmd.Wait()
		<-done
		t.Logf("round %d: killed after %d batches of 200 lines", round, at)
	}
	p := startStudioServe(t, bin, data, flags...)
	logtest.Eventually(t, 60*time.Second, "the last server to forward and reconcile everything", func() bool {
		seq := p.metric(t, "mcplogd_studio_rows_acknowledged_total")
		return p.metric(t, "mcplogd_studio_lag_records") == 0 && seq > 0 && p.metric(t, "mcplogd_studio_rows_reconciled") == seq
	})
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", err, p.errb.String())
	}
	db, err := store.Open((&datadir.Dir{Path: data}).DBPath(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v.ForceFlush(t)
	rows := v.Query(t, `{project="game",machine="m1"} | fields id, seq, _msg`)
	byID, seqs := map[uint64]string{}, map[uint64]bool{}
	for _, r := range rows {
		id, _ := strconv.ParseUint(r["id"], 10, 64)
		seq, _ := strconv.ParseUint(r["seq"], 10, 64)
		if _, dup := byID[id]; dup || seqs[seq] {
			t.Fatalf("record %d (seq %d) is in VictoriaLogs twice", id, seq)
		}
		byID[id], seqs[seq] = r["_msg"], true
	}
	st := db.Stats()
	if uint64(len(rows)) != st.Records {
		t.Fatalf("VictoriaLogs has %d rows, the log %d records", len(rows), st.Records)
	}
	for id, text := range acked {
		if byID[id] != text {
			t.Fatalf("acknowledged record %d: VictoriaLogs has %q, want %q", id, byID[id], text)
		}
	}
	for id := st.FirstID; id <= st.LastID; id++ {
		r, err := db.Get(id)
		if err != nil || byID[id] != r.Text {
			t.Fatalf("record %d: %v; VictoriaLogs has %q, the log %q", id, err, byID[id], r.Text)
		}
	}
	t.Logf("%d records, %d acknowledged to the ingesting client, all once in VictoriaLogs", st.Records, len(acked))
}

// ingestIDs posts NDJSON lines and returns the IDs the server gave them;
// ok is false when the server did not answer (it was killed).
func ingestIDs(p *studioProcess, body string) ([]uint64, bool) {
	req, _ := http.NewRequest(http.MethodPost, p.base+"/api/v1/logs", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	var out struct {
		IDs []uint64 `json:"ids"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
		return nil, false
	}
	return out.IDs, true
}

// TestServe_Studio_Config reads the studio from config.json, with the
// project and machine defaults.
func TestServe_Studio_Config(t *testing.T) {
	v := vltest.Start(t)
	data := filepath.Join(t.TempDir(), "shooter", "mcplogd-data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`{"studio": {"url": %q}}`, v.URL)
	if err := os.WriteFile(filepath.Join(data, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	base, stdout, stop := startServe(t, data, "--addr", "127.0.0.1:0")
	host, _ := os.Hostname()
	if want := fmt.Sprintf("studio:   forwarding to %s as project \"shooter\", machine %q", v.URL, host); !strings.Contains(stdout.String(), want) {
		t.Errorf("serve's banner lacks %q:\n%s", want, stdout.String())
	}
	// The project was not named: the banner says where "shooter" came from.
	if want := `("shooter" is the name of the data directory's folder: machines group together only under one --project)`; !strings.Contains(stdout.String(), want) {
		t.Errorf("serve's banner lacks %q:\n%s", want, stdout.String())
	}
	if code, body := post(t, base+"/api/v1/logs", readToken(t, data), `{"level":"warn","text":"from config"}`); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	q := fmt.Sprintf(`{project="shooter",machine=%q}`, host)
	logtest.Eventually(t, 30*time.Second, "the row in VictoriaLogs", func() bool {
		v.ForceFlush(t)
		rows := v.Query(t, q)
		return len(rows) == 1 && rows[0]["_msg"] == "from config" && rows[0]["level"] == "warn"
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
