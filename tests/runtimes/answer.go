// The runtime-compatibility plugin, Go (CGO_ENABLED=0: a static binary).
// Same behaviour as answer.c: reads fd 3 (os.NewFile) in a goroutine while
// the main goroutine waits on it and on a timer, answers 1 when the input
// starts with "yes"; with "stat" on the first line also compares Stat()'s
// size (exit 2 on failure or mismatch); with "churn", first allocates and
// drops 64 MiB and hands it back (runtime/debug.FreeOSMemory: the
// scavenger's madvise).
package main

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

var sink [][]byte

func churn() {
	for i := 0; i < 64; i++ {
		b := make([]byte, 1<<20)
		for j := range b {
			b[j] = byte(i)
		}
		sink = append(sink, b)
	}
	sink = nil
	runtime.GC()
	debug.FreeOSMemory()
}

func main() {
	runtime.GOMAXPROCS(2)
	in := os.NewFile(3, "input")
	got := make(chan []byte, 1)
	go func() {
		b, err := io.ReadAll(in)
		if err != nil {
			os.Exit(3)
		}
		got <- b
	}()
	var data []byte
	tick := time.NewTimer(10 * time.Millisecond)
	waited := false
	for data == nil {
		select {
		case data = <-got:
		case <-tick.C:
			waited = true
		}
	}
	if !waited {
		<-tick.C // the timer must fire inside the sandbox too
	}
	first := data
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		first = data[:i]
	}
	if bytes.Contains(first, []byte("churn")) {
		churn()
	}
	if bytes.Contains(first, []byte("stat")) {
		st, err := in.Stat()
		if err != nil || st.Size() != int64(len(data)) {
			os.Exit(2)
		}
	}
	answer := "0\n"
	if bytes.HasPrefix(data, []byte("yes")) {
		answer = "1\n"
	}
	if _, err := os.Stdout.WriteString(answer); err != nil {
		os.Exit(1)
	}
}
