// Package cputime reads the CPU time the process has used, for the core's
// benchmarks, which report CPU time beside wall time because on a shared
// machine the wall time measures the neighbours as much as the code.
package cputime
