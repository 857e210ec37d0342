//go:build !linux

package generator_test

func peakRSS() float64 { return 0 }

func cpuSeconds() float64 { return 0 }
