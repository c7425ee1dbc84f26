package crash_test

import (
	"slices"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
)

// TestMonoNativeCrash: Mono's native crash, as the follower keeps it (its
// native and managed frames under their headings), is named by the game's
// managed frame; the runtime's native frames name nothing, a plugin's
// function does.
func TestMonoNativeCrash(t *testing.T) {
	stack := "Native stacktrace:\n\t0x560216e2a03c - /usr/bin/mono : (null)\n\t0x560216e2a3dc - mono : mono_dump_native_crash_info\n" +
		"\t0x7f939b220ad8 - /lib/x86_64-linux-gnu/libc.so.6 : (null)\n\t0x7ffe7769fa20 - Unknown\n" +
		"Managed Stacktrace:\n\t  at <unknown> <0xffffffff>\n\t  at World:strlen <0x000a2>\n\t  at World:LoadSprite <0x00023>\n" +
		"\t  at Game:Main <0x00037>\n\t  at System.Object:runtime_invoke_void <0x00086>"
	tr := crash.Parse(stack).WithHead("Got a SIGSEGV while executing native code")
	if tr.Title() != "Got a SIGSEGV while executing native code in World.strlen" {
		t.Errorf("title %q", tr.Title())
	}
	if want := []string{"<unknown>", "World:strlen", "World:LoadSprite", "Game:Main", "System.Object:runtime_invoke_void"}; !slices.Equal(tr.Frames, want) {
		t.Errorf("frames %q, want %q", tr.Frames, want)
	}
	if f := crash.GameFrame(stack); f != "at World:strlen <0x000a2>" {
		t.Errorf("game frame %q", f)
	}
	plugin := "Native stacktrace:\n\t0x7f3a12c4d5e6 - /game/libfmod.so : FMOD_System_Update\n\t0x560216e2a03c - mono : (null)\n"
	if f := crash.Parse(plugin).Frames; !slices.Equal(f, []string{"FMOD_System_Update"}) {
		t.Errorf("a plugin's frame: %q", f)
	}
}
