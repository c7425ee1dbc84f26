package workload

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Each source crashes in its own language, so stack traces come in four
// shapes: a Unity C# trace, a Lua traceback, a Java trace from the Minecraft
// client and a gdb backtrace from a C++ game server.
type stackShape int

const (
	shapeUnity stackShape = iota
	shapeLua
	shapeJava
	shapeNative
)

// stacksPerSource distinct traces per source: real crash logs repeat the
// same few traces many times.
const stacksPerSource = 50

var (
	classSuffixes = []string{"Manager", "System", "Controller", "Handler", "Service", "Behaviour", "Pool", "Loader", "Cache", "Queue"}
	methodVerbs   = []string{"Update", "Load", "Apply", "Find", "Spawn", "Resolve", "Build", "Tick", "Process", "Dispatch", "Read", "Write", "Handle", "Compute", "Evaluate"}
	packages      = []string{"Game", "Game.AI", "Game.Net", "Game.UI", "Game.World", "Game.Combat", "Engine.Render", "Engine.Physics", "Engine.Audio", "Engine.Assets"}
	csTypes       = []string{"", "float", "int", "string", "UnityEngine.Vector3", "UnityEngine.GameObject", "System.Object", "bool"}
	csErrors      = []string{
		"NullReferenceException: Object reference not set to an instance of an object",
		"IndexOutOfRangeException: Index was outside the bounds of the array.",
		"InvalidOperationException: Collection was modified; enumeration operation may not execute.",
		"KeyNotFoundException: The given key was not present in the dictionary.",
		"MissingReferenceException: The object of type 'GameObject' has been destroyed but you are still trying to access it.",
	}
	luaErrors = []string{
		"attempt to index a nil value (field 'health')",
		"attempt to call a nil value (method 'update')",
		"attempt to perform arithmetic on a nil value (local 'dt')",
		"bad argument #1 to 'insert' (table expected, got nil)",
		"stack overflow",
	}
	javaErrors = []string{
		"java.lang.NullPointerException: Cannot invoke \"net.minecraft.entity.Entity.getPos()\" because \"entity\" is null",
		"java.lang.IllegalStateException: Entity not loaded",
		"java.util.ConcurrentModificationException",
		"java.lang.ArrayIndexOutOfBoundsException: Index 16 out of bounds for length 16",
		"java.lang.ClassCastException: class java.lang.String cannot be cast to class java.lang.Integer",
	}
	javaPackages  = []string{"net.minecraft.client.world", "net.minecraft.entity", "net.minecraft.client.render", "net.fabricmc.loader", "com.example.scriptmod.runtime", "com.example.scriptmod.api"}
	nativeSignals = []string{"SIGSEGV, Segmentation fault.", "SIGABRT, Aborted.", "SIGFPE, Arithmetic exception.", "SIGBUS, Bus error."}
	nativeDirs    = []string{"src/physics", "src/render", "src/net", "src/world", "src/scripting", "src/core"}
)

// stackGen builds traces from the pseudo-words of the vocabulary.
type stackGen struct {
	rng *rand.Rand
	sb  strings.Builder
}

func (s *stackGen) word() string {
	w := words()[200+s.rng.IntN(VocabularySize-200)] // pseudo-words make the identifiers
	return strings.ToUpper(w[:1]) + w[1:]
}

func (s *stackGen) pick(list []string) string { return list[s.rng.IntN(len(list))] }

func (s *stackGen) class() string  { return s.word() + s.pick(classSuffixes) }
func (s *stackGen) method() string { return s.pick(methodVerbs) + s.word() }
func (s *stackGen) line() string   { return strconv.Itoa(10 + s.rng.IntN(900)) }

// build returns one trace of the given shape, about target bytes long.
func (s *stackGen) build(shape stackShape, target int) string {
	s.sb.Reset()
	switch shape {
	case shapeUnity:
		s.sb.WriteString(s.pick(csErrors) + "\n")
	case shapeLua:
		s.sb.WriteString("scripts/" + strings.ToLower(s.word()) + ".lua:" + s.line() + ": " + s.pick(luaErrors) + "\nstack traceback:\n\t[C]: in function 'error'\n")
	case shapeJava:
		s.sb.WriteString(s.pick(javaErrors) + "\n")
	case shapeNative:
		s.sb.WriteString("Thread 1 \"game-server\" received signal " + s.pick(nativeSignals) + "\n")
	}
	frame := 0
	for ; s.sb.Len() < target; frame++ {
		switch shape {
		case shapeUnity:
			pkg, cls := s.pick(packages), s.class()
			s.sb.WriteString(pkg + "." + cls + ":" + s.method() + " (" + s.pick(csTypes) + ") (at Assets/Scripts/" +
				strings.ReplaceAll(pkg, ".", "/") + "/" + cls + ".cs:" + s.line() + ")\n")
		case shapeLua:
			file := "scripts/" + strings.ToLower(s.word())
			s.sb.WriteString("\t" + file + ".lua:" + s.line() + ": in function '" + strings.ToLower(s.method()) + "'\n")
		case shapeJava:
			pkg, cls := s.pick(javaPackages), s.class()
			m := s.method()
			s.sb.WriteString("\tat " + pkg + "." + cls + "." + strings.ToLower(m[:1]) + m[1:] + "(" + cls + ".java:" + s.line() + ")\n")
		case shapeNative:
			cls := s.class()
			s.sb.WriteString("#" + strconv.Itoa(frame) + "  0x00007f" + strconv.FormatUint(s.rng.Uint64N(1<<40), 16) + " in Engine::" +
				cls + "::" + s.method() + "(" + s.pick([]string{"", "float", "int", "Entity*", "const Packet&"}) + ") at " +
				s.pick(nativeDirs) + "/" + strings.ToLower(cls) + ".cpp:" + s.line() + "\n")
		}
	}
	switch shape {
	case shapeUnity:
		s.sb.WriteString("UnityEngine.Debug:LogException (System.Exception)\n")
	case shapeLua:
		s.sb.WriteString("\t[C]: in ?\n")
	case shapeJava:
		s.sb.WriteString("\tat java.base/java.lang.Thread.run(Thread.java:1583)\n")
	case shapeNative:
		s.sb.WriteString("#" + strconv.Itoa(frame) + "  0x0000000000401a2e in _start ()\n")
	}
	return s.sb.String()
}
