package follow

import "strings"

// The JVM's fatal error: a crash in native code (a driver, LWJGL, the JVM
// itself) or memory it could not get. HotSpot prints a banner of lines
// behind '#' on standard output, writes the whole report to an
// hs_err_pid file, and aborts:
//
//	#
//	# A fatal error has been detected by the Java Runtime Environment:
//	#
//	#  SIGSEGV (0xb) at pc=0x00007f3fb5cd2f94, pid=7406, tid=7407
//	#
//	# JRE version: OpenJDK Runtime Environment (17.0.15+6) (build 17.0.15+6-Debian-1deb12u1)
//	# Java VM: OpenJDK 64-Bit Server VM (…, linux-amd64)
//	# Problematic frame:
//	# C  [liblwjgl_opengl.so+0x12d44]  Java_org_lwjgl_opengl_GL11C_nglDrawElements+0x24
//	#
//	# An error report file with more information is saved as:
//	# /home/dev/game/hs_err_pid7406.log
//	#
//
// One fatal record: its text the signal's line (or the memory the JVM
// lacked), its stack the banner's other lines without their '#', the
// problematic frame among them. The '#' alone before the headline is held
// until the headline shows (runtimeLayer.begin).

const (
	jvmFatal  = "# A fatal error has been detected by the Java Runtime Environment:"
	jvmMemory = "# There is insufficient memory for the Java Runtime Environment to continue."
)

// jvmStart reports the banner's headline.
func jvmStart(t string) bool { return t == jvmFatal || t == jvmMemory }

// beginJVM starts the report at its headline: the text until the signal's
// line comes.
func (r *report) beginJVM(t string) {
	r.setText(strings.TrimPrefix(t, "# "))
	r.state = stHead // the signal's line, or the memory's, next
}

// jvm adds a line of the banner: every line behind '#'.
func (r *report) jvm(t string, end int64) bool {
	if t != "#" && !strings.HasPrefix(t, "# ") {
		return false
	}
	s := strings.TrimSpace(t[1:])
	switch {
	case s == "":
		return true
	case r.state == stHead:
		r.state = stFrames
		if r.e.rec.Text != jvmMemory[2:] {
			r.add(r.e.rec.Text, end) // the headline, under the signal's line that titles the record
			r.setText(s)
			return true
		}
	}
	return r.add(s, end)
}
