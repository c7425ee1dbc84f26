package crash_test

import (
	"slices"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
)

// TestJVMBanner: the JVM's fatal error is named by its problematic frame,
// as players posted them (Minecraft and LWJGL games, on Windows and Linux,
// in public issues of Slowpoke101/FTBLaunch, corretto/corretto-8,
// corretto/corretto-21 and JasonMcRay/InfiTech-1.7) and as OpenJDK 17 here
// printed one: a driver's function, a native library without symbols by
// its module and offset, interpreted and compiled Java by the method; the
// JVM's own code and a bare address name nothing. Crashes in different
// places never share a signature.
func TestJVMBanner(t *testing.T) {
	seen := map[string]string{}
	for _, tc := range []struct {
		frame, game string
		frames      []string
	}{
		{"C  [atio6axx.dll+0x4e66ca]  DrvPresentBuffers+0x4a332a", "atio6axx.dll(DrvPresentBuffers+0x4a332a)", []string{"DrvPresentBuffers"}},
		{"C  [lwjgl_opengl.dll+0xc857]", "lwjgl_opengl.dll(+0xc857)", []string{"lwjgl_opengl.dll+0xc857"}},
		{"C  [libnvidia-glcore.so.550.78+0x621830]", "libnvidia-glcore.so.550.78(+0x621830)", []string{"libnvidia-glcore.so.550.78+0x621830"}},
		{"j  thaumcraft.common.lib.research.ScanManager.generateItemHash(Lnet/minecraft/item/Item;I)I+244",
			"at thaumcraft.common.lib.research.ScanManager.generateItemHash(Lnet/minecraft/item/Item;I)I+244",
			[]string{"thaumcraft.common.lib.research.ScanManager.generateItemHash"}},
		{"J 20709 C1 chylex.hee.mechanics.charms.handler.CharmPouchHandlerClient.onClientTick(Lcpw/mods/fml/common/gameevent/TickEvent$ClientTickEvent;)V (172 bytes) @ 0x0000000004c3d54d [0x0000000004c3d5a0+0xffffffad]",
			"at chylex.hee.mechanics.charms.handler.CharmPouchHandlerClient.onClientTick(Lcpw/mods/fml/common/gameevent/TickEvent$ClientTickEvent;)V",
			[]string{"chylex.hee.mechanics.charms.handler.CharmPouchHandlerClient.onClientTick"}},
		{"V  [libjvm.so+0xed2f94]  Unsafe_PutLong+0x124", "", nil},
		{"V  [jvm.dll+0x3aebbe]", "", nil},
		{"C  0x00000000029c0000", "", nil},
	} {
		stack := "A fatal error has been detected by the Java Runtime Environment:\n" +
			"JRE version: OpenJDK Runtime Environment (17.0.15+6) (build 17.0.15+6-Debian-1deb12u1)\n" +
			"Problematic frame:\n" + tc.frame + "\n" +
			"An error report file with more information is saved as:\n/home/dev/game/hs_err_pid7406.log\n"
		if f := crash.GameFrame(stack); f != tc.game {
			t.Errorf("%s: game frame %q, want %q", tc.frame, f, tc.game)
		}
		sig, _, frames := crash.Signature(stack)
		if !slices.Equal(frames, tc.frames) {
			t.Errorf("%s: frames %q, want %q", tc.frame, frames, tc.frames)
		}
		if other, dup := seen[sig]; dup && tc.frames != nil {
			t.Errorf("%s and %s share signature %s", tc.frame, other, sig)
		}
		seen[sig] = tc.frame
	}
	// The record's text, the signal's line, heads the trace.
	tr := crash.Parse("A fatal error has been detected by the Java Runtime Environment:\nProblematic frame:\nC  [lwjgl_opengl.dll+0xc857]\n").
		WithHead("EXCEPTION_ACCESS_VIOLATION (0xc0000005) at pc=0x00007ffb5110c857, pid=14700, tid=0x0000000000003040")
	if want := "EXCEPTION_ACCESS_VIOLATION (N) at pc=N, pid=N, tid=N"; tr.Head != want {
		t.Errorf("head %q", tr.Head)
	}
}
