package serve

import (
	"net/http"
	"net/netip"
	"strings"

	"github.com/seam-dag/seam/auth"
	"github.com/seam-dag/seam/internal/i18n"
)

// proxy is the trusted-proxy mode: an authenticating proxy in front of the server (such as
// oauth2-proxy) names the person in a header, which is believed only from the proxy's
// addresses; from anywhere else the header is not read.
type proxy struct {
	header string
	from   []netip.Prefix
}

// newProxy reads Options.ProxyHeader and ProxyFrom; nil when no header is named.
func newProxy(opts Options, who auth.Source, lang i18n.Lang) (*proxy, error) {
	if opts.ProxyHeader == "" {
		if len(opts.ProxyFrom) > 0 {
			return nil, i18n.Errorf(lang, "--auth-proxy-from without --auth-proxy-header: name the header the proxy sets, e.g. --auth-proxy-header X-Forwarded-User")
		}
		return nil, nil
	}
	if !auth.IsFile(who) {
		return nil, i18n.Errorf(lang, "--auth-proxy-header %s needs a principals file (--principals): the header names one of its principals", opts.ProxyHeader)
	}
	if len(opts.ProxyFrom) == 0 {
		return nil, i18n.Errorf(lang, "--auth-proxy-header %s without --auth-proxy-from: give the proxy's addresses (CIDR, e.g. 10.0.0.5/32), else anyone could set the header", opts.ProxyHeader)
	}
	p := &proxy{header: http.CanonicalHeaderKey(opts.ProxyHeader)}
	for _, s := range opts.ProxyFrom {
		pre, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err != nil {
			a, aerr := netip.ParseAddr(strings.TrimSpace(s))
			if aerr != nil {
				return nil, i18n.Errorf(lang, "--auth-proxy-from %q: want an address or a CIDR, e.g. 10.0.0.5 or 10.0.0.0/24", s)
			}
			pre = netip.PrefixFrom(a, a.BitLen())
		}
		p.from = append(p.from, pre.Masked())
	}
	return p, nil
}

// user is the person r's header names, when r comes from one of the proxy's addresses and
// carries the header.
func (p *proxy) user(r *http.Request) (string, bool) {
	v := strings.TrimSpace(r.Header.Get(p.header))
	if v == "" {
		return "", false
	}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return "", false
	}
	a := ap.Addr().Unmap()
	for _, pre := range p.from {
		if pre.Contains(a) {
			return v, true
		}
	}
	return "", false
}
