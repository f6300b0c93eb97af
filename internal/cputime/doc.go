// Package cputime reads the CPU time a process or one of its threads has
// used, for the benchmarks and studies that report CPU time beside wall
// time: on a machine shared with other jobs the wall time measures the
// neighbours as much as the code, the CPU time does not. Outside Linux the
// clocks are not read (see each function).
package cputime
