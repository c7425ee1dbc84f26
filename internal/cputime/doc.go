// Package cputime reads this process's CPU time, user and system, which the
// benchmarks report figures per CPU second by: on a shared machine they hold
// better than wall time. Unix asks getrusage, Windows GetProcessTimes.
//
//	start := cputime.Self()
//	work()
//	fmt.Println("CPU:", cputime.Self()-start)
package cputime
