package faults

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
	"github.com/mcplogd/mcplogd/internal/harness/vltest"
)

// TestFaults runs the suite: `make faults` (MCPLOGD_FAULTS=1). The
// environment chooses: MCPLOGD_FAULTS=1 every scenario, or a comma list of
// names ("ingest,follow"); MCPLOGD_FAULTS_ROUNDS kills per scenario
// (default 3); MCPLOGD_FAULTS_SEED the random seed. It prints one table row
// per scenario and fails when an acknowledged record was lost or
// duplicated.
func TestFaults(t *testing.T) {
	which := os.Getenv("MCPLOGD_FAULTS")
	if which == "" || testing.Short() {
		t.Skip("the fault-injection suite runs with `make faults` (MCPLOGD_FAULTS=1)")
	}
	rounds, _ := strconv.Atoi(os.Getenv("MCPLOGD_FAULTS_ROUNDS"))
	if rounds <= 0 {
		rounds = 3
	}
	seed, err := strconv.ParseUint(os.Getenv("MCPLOGD_FAULTS_SEED"), 10, 64)
	if err != nil {
		seed = uint64(time.Now().UnixNano())
	}
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	var log io.Writer = io.Discard
	if testing.Verbose() {
		log = os.Stdout
	}
	fmt.Printf("seed %d, %d rounds per scenario\n", seed, rounds)
	var rows []string
	for i, sc := range Scenarios {
		if which != "1" && !slices.Contains(strings.Split(which, ","), sc.Name) {
			continue
		}
		e := &Env{Bin: bin, Dir: filepath.Join(dir, fmt.Sprint("s", i)), Rounds: rounds, Rand: rand.New(rand.NewPCG(seed, uint64(i))), Log: log}
		if vltest.Binary() != "" {
			e.VL = func() *vltest.VL { return vltest.Start(t) }
		}
		if err := os.MkdirAll(e.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		r, err := sc.Run(e)
		if err != nil {
			t.Errorf("%s: %v", sc.Name, err)
			continue
		}
		rows = append(rows, Row(r, time.Since(start)))
		if r.Skipped == "" && !r.LossExpected && (r.Lost > 0 || r.Dup > 0) {
			t.Errorf("%s: %d acknowledged, %d lost, %d duplicated", sc.Name, r.Acked, r.Lost, r.Dup)
		}
	}
	fmt.Println(Header)
	for _, row := range rows {
		fmt.Println(row)
	}
}

// buildBinary builds mcplogd into dir and returns its path.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	root, err := logtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "mcplogd")
	build := exec.Command("go", "build", "-o", bin, "./cmd/mcplogd")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
