package bench

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/internal/cputime"
)

// cpuSample is the machine's CPU time and this process's, so that a
// report can say how busy other processes kept the machine while it
// measured: on a shared machine that explains a slow figure.
type cpuSample struct {
	total, busy time.Duration // all CPUs, from /proc/stat; zero when unknown
	self        time.Duration // this process, user + system
}

// userHZ is the unit of /proc/stat, fixed at 100 on Linux.
const userHZ = 100

func sampleCPU() cpuSample {
	var s cpuSample
	s.self = cputime.Self()
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return s
	}
	for i, v := range f[1:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || i >= 8 { // guest time is already counted in user
			continue
		}
		d := time.Duration(n) * time.Second / userHZ
		s.total += d
		if i != 3 && i != 4 { // idle, iowait
			s.busy += d
		}
	}
	return s
}

// othersShare returns the share of all CPUs' time between a and b that
// other processes used, or -1 when unknown.
func othersShare(a, b cpuSample) float64 {
	total := b.total - a.total
	if total <= 0 {
		return -1
	}
	others := (b.busy - a.busy) - (b.self - a.self)
	return max(0, float64(others)/float64(total))
}
