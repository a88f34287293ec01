// quic-go-peer: a tiny HTTP/3 server and client on quic-go, driven by
// `cargo xtask interop` (interop/peers/README.md).
//
//	quic-go-peer server --listen 127.0.0.1:0 --cert C --key K --root DIR
//	quic-go-peer client --ca CA.pem --out FILE --timeout-s 120 URL
//
// The server serves files under --root and /bytes/N (byte i = i mod 251,
// as our h3-server does) and prints `listening on ADDR` once bound. The
// client fetches one URL, saves the body with --out and prints
// `GET URL -> STATUS, N bytes in T s, goodput G Mbit/s`. Stock quic-go has
// no congestion-control switch: it always runs its own CUBIC-style (NewReno
// family) controller.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: quic-go-peer server|client [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "server":
		err = server(os.Args[2:])
	case "client":
		err = client(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: want server or client", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "quic-go-peer: error:", err)
		os.Exit(1)
	}
}

const chunk = 64 * 1024

// pattern writes n bytes with byte i = i mod 251.
func pattern(w io.Writer, n int64) error {
	buf := make([]byte, chunk+251)
	for i := range buf {
		buf[i] = byte(i % 251)
	}
	var off int64
	for off < n {
		start := off % 251
		size := n - off
		if size > chunk {
			size = chunk
		}
		if _, err := w.Write(buf[start : start+size]); err != nil {
			return err
		}
		off += size
	}
	return nil
}

func server(args []string) error {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "UDP address to listen on")
	cert := fs.String("cert", "examples/certs/chain.pem", "certificate chain (PEM)")
	key := fs.String("key", "examples/certs/key.pem", "private key (PEM)")
	root := fs.String("root", ".", "directory whose files are served")
	maxSeconds := fs.Float64("max-seconds", 600, "exit after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	pair, err := tls.LoadX509KeyPair(*cert, *key)
	if err != nil {
		return fmt.Errorf("cannot load certificate: %w", err)
	}
	absRoot, err := filepath.Abs(*root)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/bytes/", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, "/bytes/"), 10, 64)
		if err != nil || n < 0 || n > 1<<32 {
			http.Error(w, "bad length", http.StatusBadRequest)
			return
		}
		w.Header().Set("content-length", strconv.FormatInt(n, 10))
		w.WriteHeader(http.StatusOK)
		_ = pattern(w, n)
	})
	// http.FileServer refuses paths with `..` and stays under the root.
	mux.Handle("/", http.FileServer(http.Dir(absRoot)))
	addr, err := net.ResolveUDPAddr("udp", *listen)
	if err != nil {
		return err
	}
	conn, err := net.ListenUDP("udp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", *listen, err)
	}
	srv := &http3.Server{
		Handler:    mux,
		TLSConfig:  http3.ConfigureTLSConfig(&tls.Config{Certificates: []tls.Certificate{pair}}),
		QUICConfig: &quic.Config{MaxIdleTimeout: 30 * time.Second},
	}
	fmt.Printf("listening on %s\n", conn.LocalAddr())
	os.Stdout.Sync()
	go func() {
		time.Sleep(time.Duration(*maxSeconds * float64(time.Second)))
		fmt.Fprintln(os.Stderr, "quic-go-peer: --max-seconds reached")
		os.Exit(0)
	}()
	return srv.Serve(conn)
}

func client(args []string) error {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	ca := fs.String("ca", "", "trust this CA (PEM) instead of the system roots")
	out := fs.String("out", "", "save the body here")
	timeoutS := fs.Float64("timeout-s", 120, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("want exactly one URL")
	}
	url := fs.Arg(0)
	tlsConf := &tls.Config{}
	if *ca != "" {
		pem, err := os.ReadFile(*ca)
		if err != nil {
			return fmt.Errorf("cannot read CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("no certificate in %s", *ca)
		}
		tlsConf.RootCAs = pool
	}
	tr := &http3.Transport{
		TLSClientConfig: tlsConf,
		QUICConfig:      &quic.Config{MaxIdleTimeout: 30 * time.Second},
	}
	defer tr.Close()
	ctx, cancel := context.WithTimeout(context.Background(),
		time.Duration(*timeoutS*float64(time.Second)))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	start := time.Now()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var sink io.Writer = io.Discard
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		sink = f
	}
	n, err := io.Copy(sink, resp.Body)
	if err != nil {
		return fmt.Errorf("after %d bytes: %w", n, err)
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("GET %s -> %d, %d bytes in %.3f s, goodput %.2f Mbit/s\n",
		url, resp.StatusCode, n, secs, float64(n)*8/secs/1e6)
	if resp.StatusCode/100 != 2 {
		os.Exit(3)
	}
	return nil
}
