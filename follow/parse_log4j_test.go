package follow

import (
	"testing"

	"github.com/mcplogd/mcplogd/crash"
	"github.com/mcplogd/mcplogd/oplog"
)

// TestParse_Log4jEventBus: a Forge EventBus error (Index, Listeners, then
// the exception) is one error record with its stack; the same NPE from
// different listeners has one signature, titled by the exception.
func TestParse_Log4jEventBus(t *testing.T) {
	bus := func(index, listener string) oplog.Record {
		es := parse(t, "log4j", "[20:38:36] [Server thread/ERROR] [ne.mi.ev.EventBus/EVENTBUS]: Exception caught during firing event: null\n"+
			"\tIndex: "+index+"\n\tListeners:\n\t\t0: NORMAL\n\t\t1: ASM: "+listener+"\n"+
			"java.lang.NullPointerException\n\tat com.example.Events.onImpact(Events.java:180)\n\tat net.minecraftforge.eventbus.EventBus.post(EventBus.java:297)\n"+
			"[20:38:37] [Server thread/INFO] [minecraft/MinecraftServer]: next\n")
		if len(es) != 2 || es[0].Record.Level != oplog.LevelError {
			t.Fatalf("%d records, first %+v", len(es), es)
		}
		return es[0].Record
	}
	a, b := bus("1", "class com.example.Events onImpact(Lx;)V"), bus("4", "class com.other.Handler onImpact(Lx;)V")
	sa, ta, _ := crash.Signature(a.Stack)
	sb, _, _ := crash.Signature(b.Stack)
	if sa != sb || ta != "NullPointerException in Events.onImpact" {
		t.Errorf("signatures %s %s, title %q", sa, sb, ta)
	}
}

// TestParse_Log4jRealNeoForge: the real NeoForge latest.log excerpt:
// levels, names, an empty header taking the next line as text, the
// EventBus error whole, the crash report printed through STDOUT one fatal
// record with the report's exception.
func TestParse_Log4jRealNeoForge(t *testing.T) {
	es := feed(mustParser(t, "auto"), readSample(t, "minecraft/latest-neoforge-1.21.1.log"))
	var bus, report, modList *oplog.Record
	for i := range es {
		r := &es[i].Record
		switch {
		case r.Text == "Mod List:":
			modList = r
		case r.Name == "net.neoforged.bus.EventBus":
			bus = r
		case r.Name == "STDOUT":
			report = r
		}
	}
	if modList == nil || bus == nil || report == nil {
		t.Fatalf("mod list %v, bus %v, report %v", modList != nil, bus != nil, report != nil)
	}
	if bus.Level != oplog.LevelError || string(bus.Data) != `{"thread":"Render thread","marker":"EVENTBUS"}` {
		t.Errorf("bus record %s %s", bus.Level, bus.Data)
	}
	if _, title, _ := crash.Signature(bus.Stack); title != "NullPointerException in VeilForgeClientEvents.clientDisconnected" {
		t.Errorf("bus title %q", title)
	}
	if report.Level != oplog.LevelFatal || report.Text != "Rendering overlay: java.lang.RuntimeException: Sodium mod config not found" ||
		report.Time.Format("2006-01-02 15:04:05.000") != "2026-08-20 19:29:12.727" {
		t.Errorf("report %s %q %s", report.Level, report.Text, report.Time)
	}
	if _, title, _ := crash.Signature(report.Stack); title != "RuntimeException in ConfigManager.registerConfigs" {
		t.Errorf("report title %q", title)
	}
}

// TestParse_Log4jWarningWithException: a warning with an exception and its
// frames under it (Bukkit's "Task #15 for Essentials generated an
// exception") is an error, as the same exception on the header's line is;
// a warning with lines under it that are no exception's stays one.
func TestParse_Log4jWarningWithException(t *testing.T) {
	es := parse(t, "log4j", "[11:25:27] [Server thread/WARN]: [Essentials] Task #15 for Essentials v2.16.0.3 generated an exception\n"+
		"java.lang.NullPointerException: null\n"+
		"at com.earth2me.essentials.xmpp.XMPPManager.updatePresence(XMPPManager.java:148) ~[?:?]\n"+
		"[11:25:28] [Server thread/WARN]: [WorldEdit] Config has unknown keys:\n"+
		"  limits.max-blocks\n"+
		"[11:25:29] [Server thread/WARN]: java.lang.IllegalStateException: chunk saved with newer version\n"+
		"\tat net.minecraft.server.Chunk.load(Chunk.java:12)\n"+
		"[11:25:30] [Server thread/WARN]: Can't keep up!\n")
	want := []oplog.Level{oplog.LevelError, oplog.LevelWarn, oplog.LevelError, oplog.LevelWarn}
	if len(es) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(es), len(want), es)
	}
	for i, e := range es {
		if e.Record.Level != want[i] {
			t.Errorf("%q: %s, want %s", e.Record.Text, e.Record.Level, want[i])
		}
	}
}
