// Command liar is a server for bench/run.sh that announces a body far
// larger than gwdash reads (Content-Length: 1,000,000,000), sends a few
// bytes of it and then holds the connection: a client that reads before it
// checks the length waits, or grows, until it gives up. It counts the
// requests it answered per path and prints them when interrupted.
//
//	go run ./bench/liar 127.0.0.1:8788
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	addr := "127.0.0.1:0"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	var n atomic.Int64
	var mu sync.Mutex
	paths := map[string]int{}
	srv := &http.Server{Addr: addr, ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		mu.Lock()
		paths[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1000000000")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `{"id":"batch-liar","object":"batch","status":"completed","results":[`)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		mu.Lock()
		var each []string
		for p, c := range paths {
			each = append(each, fmt.Sprintf("%s ×%d", p, c))
		}
		mu.Unlock()
		sort.Strings(each)
		fmt.Printf("requests %d: %s\n", n.Load(), strings.Join(each, ", "))
		os.Exit(0)
	}()
	fmt.Printf("listening on %s\n", addr)
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
