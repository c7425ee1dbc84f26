// Package agentload builds the realistic store that the answer-size tests
// measure an agent's answers on: about 20,000 records of a Unity game (Debug.Log lines,
// NullReferenceException with Mono stacks), a Lua ECS engine (errors with
// tracebacks) and a Minecraft server (log4j lines, Java exceptions with
// "Caused by:"); about 400 crashes in several groups; a flood of 600
// identical shader warnings in a row; 200 lines of 3 KB text with 2 KB
// stacks; operations with the lines their source wrote while they ran; and
// a distinct newest crash at the end.
//
// The same seed gives the same records. Fill appends them to a Log and
// returns the Facts a test checks answers against:
//
//	f, err := agentload.Fill(ctx, l, agentload.Seed)
package agentload
