package httpserve

import (
	"math"
	"net/netip"
	"sync"
	"time"
)

// Limits of wrong tokens (docs/limits.md): the web view's login and bearer tokens, and MCP's
// bearer tokens over HTTP.
const (
	// TokenBurst is how many wrong tokens a client address may send in a row; past it, a
	// token is refused with 429 before it is compared.
	TokenBurst = 5
	// TokenRefill is how often a client address gets one more try back.
	TokenRefill = 10 * time.Second
	// MaxTokenClients caps the client addresses whose wrong tokens are remembered.
	MaxTokenClients = 10000
)

// Tries slows the guessing of tokens: each client address (ClientAddr) has a bucket of
// TokenBurst tries that refills one every TokenRefill, and a wrong token takes one. The zero
// value is ready to use.
type Tries struct {
	mu      sync.Mutex
	clients map[netip.Addr]bucket
}

type bucket struct {
	left float64 // tries left at `at`
	at   time.Time
}

// refilled is b at now.
func (b bucket) refilled(now time.Time) bucket {
	b.left = math.Min(TokenBurst, b.left+float64(now.Sub(b.at))/float64(TokenRefill))
	b.at = now
	return b
}

// Wait is how long ip must wait before its next try; 0 when it may try now.
func (t *Tries) Wait(ip netip.Addr, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, ok := t.clients[ip]
	if !ok {
		return 0
	}
	if b = b.refilled(now); b.left >= 1 {
		return 0
	}
	return time.Duration((1 - b.left) * float64(TokenRefill))
}

// Wrong takes a try from ip.
func (t *Tries) Wrong(ip netip.Addr, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.clients == nil {
		t.clients = map[netip.Addr]bucket{}
	}
	b, ok := t.clients[ip]
	if !ok {
		if len(t.clients) >= MaxTokenClients {
			t.forget(now)
		}
		b = bucket{left: TokenBurst, at: now}
	}
	b = b.refilled(now)
	b.left--
	t.clients[ip] = b
}

// forget drops the addresses whose bucket is full again, which remembers nothing; when none
// is, one address, which may then try again sooner than it should.
func (t *Tries) forget(now time.Time) {
	for ip, b := range t.clients {
		if b.refilled(now).left >= TokenBurst {
			delete(t.clients, ip)
		}
	}
	for ip := range t.clients {
		if len(t.clients) < MaxTokenClients {
			break
		}
		delete(t.clients, ip)
	}
}

// RetryAfter is Wait in whole seconds, at least 1: what a 429's Retry-After says.
func RetryAfter(wait time.Duration) int {
	return max(1, int(math.Ceil(wait.Seconds())))
}
