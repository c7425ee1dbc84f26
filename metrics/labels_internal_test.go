package metrics

import "testing"

func TestLabelCap_Value(t *testing.T) {
	c := labelCap{max: 2}
	for _, step := range []struct {
		v     string
		admit bool
		want  string
	}{
		{"unknown", false, ""}, // never answered: not admitted
		{"a", true, "a"},
		{"b", true, "b"},
		{"c", true, otherLabel}, // full
		{"c", false, ""},
		{"a", false, "a"}, // admitted before
		{"b", true, "b"},
	} {
		if got := c.value(step.v, step.admit); got != step.want {
			t.Errorf("value(%q, %v) = %q, want %q", step.v, step.admit, got, step.want)
		}
	}
}
