package crash

import "time"

// TopFrames is how many frames, from the top of a stack, make its signature.
// Deeper frames say how the program got there, which varies between
// occurrences of one crash (another caller, another event loop) more than
// it identifies the crash.
const TopFrames = 5

// Limits on what one trace keeps, so that a huge or hostile stack costs a
// bounded amount of memory in the index.
const (
	maxHeadBytes  = 200 // a normalised head (exception type and message)
	maxFrameBytes = 200 // one normalised frame
	maxLineBytes  = 300 // one frame line as written (TopLines)
	maxTitleRunes = 120 // a title, "Type in Class.Method"
	minTitleRunes = 16  // what a title keeps of its type however long the frame
)

// Bounds of the Index's parsed-stack cache; it is emptied when full. Stacks
// may be up to oplog.MaxStackBytes each.
const (
	maxTraces     = 4096
	maxTraceBytes = 16 << 20
)

// minDeadGroups is how many groups without occurrences the Index keeps
// before it compacts them away (when they are also the majority): below
// that, the memory is not worth a pass over every entry.
const minDeadGroups = 1024

// defaultInterval is Options.Interval's default.
const defaultInterval = time.Second

// maxFramedGroups is how many groups of an answer get LastFrames, each a
// read of one record: more than an agent's answer can show.
const maxFramedGroups = 200

// dumpSpan is how long after a run's crash the engine's fatal lines are
// still its dump (firstFatal): a dying engine prints its dump at once.
const dumpSpan = 10 * time.Second

// reasonGap is how many records before a crash's first fatal line the
// error that gave its reason may be (reasonBefore): the dump's banner lines
// come between.
const reasonGap = 8
