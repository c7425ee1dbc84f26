package oplog

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// StudioCursor is where a studio page starts: the rows at or before T
// (zero: the newest), from the Skip-th of those at exactly T, so that a
// page reads on where the last ended however many newer rows came since.
// Its text ("v<unix ns>.<skip>") is the NextCursor of studio answers.
type StudioCursor struct {
	T    time.Time
	Skip int
}

func (c StudioCursor) String() string {
	return "v" + strconv.FormatInt(c.T.UnixNano(), 10) + "." + strconv.Itoa(c.Skip)
}

// ParseStudioCursor reads a StudioCursor's text; "" is the newest.
// EINVALID for anything else.
func ParseStudioCursor(s string) (StudioCursor, error) {
	if s == "" {
		return StudioCursor{}, nil
	}
	bad := Errorf(EINVALID, "cursor: %q is not a studio cursor (pass the nextCursor of a studio answer)", s)
	ts, skip, ok := strings.Cut(strings.TrimPrefix(s, "v"), ".")
	ns, err1 := strconv.ParseInt(ts, 10, 64)
	k, err2 := strconv.Atoi(skip)
	if !ok || !strings.HasPrefix(s, "v") || err1 != nil || err2 != nil || k < 0 {
		return StudioCursor{}, bad
	}
	return StudioCursor{T: time.Unix(0, ns).UTC(), Skip: k}, nil
}

// StudioTies follows rows newest first to give each the cursor that starts
// at it: its time, and how many rows before it share that time. Start it
// from the page's cursor: StudioTies{T: cur.T, N: cur.Skip}.
type StudioTies struct {
	T time.Time
	N int
}

// At is the cursor of the next row, of time t.
func (x *StudioTies) At(t time.Time) StudioCursor {
	if !t.Equal(x.T) {
		x.T, x.N = t, 0
	}
	x.N++
	return StudioCursor{T: t, Skip: x.N - 1}
}

// WantedClass reports whether a crash group of class is among classes:
// crashes and errors when none is named (CrashQuery.Classes).
func WantedClass(classes []string, class string) bool {
	if len(classes) == 0 {
		return class != ClassCompile
	}
	return slices.Contains(classes, class)
}

// SortStudioCrashGroups orders groups as the local crash index orders its
// own: those that ended a run first, then by class (CrashClasses' order),
// the newest first, by signature.
func SortStudioCrashGroups(groups []StudioCrashGroup) {
	slices.SortFunc(groups, func(a, b StudioCrashGroup) int {
		return cmp.Or(cmp.Compare(min(b.RunsEnded, 1), min(a.RunsEnded, 1)),
			cmp.Compare(slices.Index(CrashClasses, a.Class), slices.Index(CrashClasses, b.Class)),
			b.LastSeen.Compare(a.LastSeen), strings.Compare(a.Signature, b.Signature))
	})
}
