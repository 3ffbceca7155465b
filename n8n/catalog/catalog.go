// Package catalog is what seam knows about n8n's node types: per type and version, its display
// name, whether it is a trigger, its inputs and outputs with their connection types, its
// properties (type, default, required, options, displayOptions) and credentials. It is
// generated from the dist/types/nodes.json files of the pinned n8n-nodes-base and
// @n8n/n8n-nodes-langchain packages by `go run ./n8n/catalog/gen` and embedded compressed.
//
// Nodes whose inputs or outputs n8n computes from an expression get hand-written rules
// (rules.go); the generator records, for the others, which connection types the expression
// can produce.
package catalog

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
)

//go:embed catalog.pack
var embedded []byte

// Header is the index at the front of the packed catalog: the versions it was generated
// from and, per node type, where its compressed JSON (a list of Node) lies in the pack.
type Header struct {
	// N8N is the n8n release the packages come from; Packages their versions.
	N8N      string            `json:"n8n"`
	Packages map[string]string `json:"packages"`
	Types    []Entry           `json:"types"`
}

// Entry locates one node type's descriptions in the pack. A <type>Tool variant shares the
// blob of the type it wraps.
type Entry struct {
	Type   string `json:"t"`
	Off    int    `json:"o"`
	Len    int    `json:"l"`
	ToolOf string `json:"to,omitempty"`
}

// Node is one description of a node type: a type has one per group of versions that share
// their description.
type Node struct {
	Type        string    `json:"t"` // full type name, e.g. n8n-nodes-base.if
	DisplayName string    `json:"dn"`
	Versions    []float64 `json:"v"`
	// DefaultVersion is the type's default version when n8n declares one; its presence means
	// the type is versioned, and n8n knows only the listed versions.
	DefaultVersion float64 `json:"dv,omitempty"`
	Trigger        bool    `json:"tr,omitempty"`
	Hidden         bool    `json:"h,omitempty"`
	// Inputs and Outputs are the static ports; nil when n8n computes them (DynInputs).
	Inputs  []Port `json:"i,omitempty"`
	Outputs []Port `json:"o,omitempty"`
	// DynInputs and DynOutputs, when set, are the connection types the expression can produce.
	DynInputs   []string `json:"di,omitempty"`
	DynOutputs  []string `json:"do,omitempty"`
	OutputNames []string `json:"on,omitempty"`
	Props       []*Prop  `json:"p,omitempty"`
	Credentials []Cred   `json:"c,omitempty"`
	// UsableAsTool: n8n also offers this node as <type>Tool, an ai_tool sub-node.
	UsableAsTool bool `json:"ut,omitempty"`
	// ToolOf names the node type a synthesised <type>Tool variant wraps.
	ToolOf  string `json:"to,omitempty"`
	Webhook bool   `json:"wh,omitempty"`

	props PropSet
}

func (n *Node) index() { n.props = NewPropSet(n.Props) }

// PropSet is the node's top-level properties, indexed.
func (n *Node) PropSet() *PropSet { return &n.props }

// Port is an input or output: its connection type (main, ai_languageModel, ...).
type Port struct {
	Type     string `json:"t"`
	Name     string `json:"n,omitempty"`
	Required bool   `json:"r,omitempty"`
	Max      int    `json:"m,omitempty"` // maxConnections; 0 means unlimited
}

// Prop is a node property (a parameter).
type Prop struct {
	Name    string `json:"n"`
	Type    string `json:"t"`
	Default any    `json:"d,omitempty"`
	// BigDefault: the default is a long non-empty value that the catalog leaves out.
	BigDefault bool    `json:"bd,omitempty"`
	Required   bool    `json:"r,omitempty"`
	Options    []any   `json:"o,omitempty"` // values of an options/multiOptions property
	Dynamic    bool    `json:"dy,omitempty"`
	Sub        []*Prop `json:"s,omitempty"` // a collection's properties
	Groups     []Group `json:"g,omitempty"` // a fixedCollection's groups
	Multiple   bool    `json:"mu,omitempty"`
	Show       Cond    `json:"sh,omitempty"`
	Hide       Cond    `json:"hi,omitempty"`
	NoExpr     bool    `json:"ne,omitempty"`

	sub PropSet // Sub, indexed
}

// Group is one group of a fixedCollection.
type Group struct {
	Name  string  `json:"n"`
	Props []*Prop `json:"p,omitempty"`

	set PropSet
}

// PropSet is a list of property definitions indexed by name: a name can have several
// definitions, each shown under other conditions.
type PropSet struct {
	List   []*Prop
	Names  []string // distinct, in definition order
	byName map[string][]*Prop
}

// Variants returns the definitions called name.
func (s *PropSet) Variants(name string) []*Prop { return s.byName[name] }

// NewPropSet indexes list.
func NewPropSet(list []*Prop) PropSet {
	s := PropSet{List: list, byName: make(map[string][]*Prop, len(list))}
	for _, p := range list {
		if _, seen := s.byName[p.Name]; !seen {
			s.Names = append(s.Names, p.Name)
		}
		s.byName[p.Name] = append(s.byName[p.Name], p)
		p.index()
	}
	return s
}

func (p *Prop) index() {
	if len(p.Sub) > 0 {
		p.sub = NewPropSet(p.Sub)
	}
	for i := range p.Groups {
		p.Groups[i].set = NewPropSet(p.Groups[i].Props)
	}
}

// SubSet is a collection's properties, indexed.
func (p *Prop) SubSet() *PropSet { return &p.sub }

// Set is a fixedCollection group's properties, indexed.
func (g *Group) Set() *PropSet { return &g.set }

// Cond is a displayOptions show or hide: parameter name → accepted values.
type Cond map[string][]any

// Cred is a credential type the node can use.
type Cred struct {
	Name     string `json:"n"`
	Required bool   `json:"r,omitempty"`
	Show     Cond   `json:"sh,omitempty"`
	Hide     Cond   `json:"hi,omitempty"`
}

// Catalog answers questions about node types. Each type's descriptions are decompressed and
// decoded the first time they are asked for, so that loading the catalog costs only its index.
type Catalog struct {
	header Header
	pack   []byte
	byType map[string]*typeEntry
	names  []string
}

// typeEntry decodes one type's descriptions once.
type typeEntry struct {
	Entry
	once     sync.Once
	nodes    []*Node
	versions []float64 // ascending, over all descriptions
	err      error
}

// Loader loads the embedded catalog once, on first use: most seam commands never need it.
// Keep one per process (or per test); its zero value is ready.
type Loader struct {
	once sync.Once
	cat  *Catalog
	err  error
}

// Get returns the embedded catalog, reading its index on the first call.
func (l *Loader) Get() (*Catalog, error) {
	l.once.Do(func() { l.cat, l.err = Open(embedded) })
	return l.cat, l.err
}

// Open reads a packed catalog: a 4-byte little-endian length, the gzip-compressed JSON
// Header, then each type's gzip-compressed JSON.
func Open(pack []byte) (*Catalog, error) {
	if len(pack) < 4 {
		return nil, errors.New("catalog: pack too short")
	}
	n := int(binary.LittleEndian.Uint32(pack))
	if n > len(pack)-4 {
		return nil, fmt.Errorf("catalog: header length %d beyond the pack's %d bytes", n, len(pack))
	}
	raw, err := gunzip(pack[4 : 4+n])
	if err != nil {
		return nil, fmt.Errorf("catalog: header: %w", err)
	}
	c := &Catalog{pack: pack[4+n:]}
	if err := json.Unmarshal(raw, &c.header); err != nil {
		return nil, fmt.Errorf("catalog: header: %w", err)
	}
	c.byType = make(map[string]*typeEntry, len(c.header.Types))
	for _, e := range c.header.Types {
		if e.Off < 0 || e.Len < 0 || e.Off+e.Len > len(c.pack) {
			return nil, fmt.Errorf("catalog: %s lies outside the pack", e.Type)
		}
		c.byType[e.Type] = &typeEntry{Entry: e}
		c.names = append(c.names, e.Type)
	}
	sort.Strings(c.names)
	return c, nil
}

func gunzip(b []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// nodes returns typ's descriptions, decoding them on first use.
func (c *Catalog) nodes(typ string) []*Node {
	e := c.byType[typ]
	if e == nil {
		return nil
	}
	e.once.Do(func() {
		raw, err := gunzip(c.pack[e.Off : e.Off+e.Len])
		if err != nil {
			e.err = fmt.Errorf("catalog: %s: %w", typ, err)
			return
		}
		var ns []*Node
		if err := json.Unmarshal(raw, &ns); err != nil {
			e.err = fmt.Errorf("catalog: %s: %w", typ, err)
			return
		}
		if e.ToolOf != "" {
			for i, n := range ns {
				ns[i] = ToolVariant(n)
			}
		}
		for _, n := range ns {
			n.index()
			e.versions = append(e.versions, n.Versions...)
		}
		sort.Float64s(e.versions)
		e.nodes = ns
	})
	return e.nodes
}

// N8N is the n8n release the catalog describes.
func (c *Catalog) N8N() string { return c.header.N8N }

// Packages are the node packages and their versions.
func (c *Catalog) Packages() map[string]string { return c.header.Packages }

// Types lists the known node types, sorted.
func (c *Catalog) Types() []string { return c.names }

// Known reports whether typ is a known node type.
func (c *Catalog) Known(typ string) bool { return c.byType[typ] != nil }

// Versions returns every version of typ, ascending. The slice is shared: do not modify it.
func (c *Catalog) Versions(typ string) []float64 {
	e := c.byType[typ]
	if e == nil {
		return nil
	}
	c.nodes(typ)
	return e.versions
}

// Latest returns the newest version of typ.
func (c *Catalog) Latest(typ string) float64 {
	vs := c.Versions(typ)
	if len(vs) == 0 {
		return 0
	}
	return vs[len(vs)-1]
}

// Versioned reports whether n8n knows only the listed versions of typ (a versioned node
// type): any other version is refused. A plain node type accepts any version.
func (c *Catalog) Versioned(typ string) bool {
	ns := c.nodes(typ)
	return len(ns) > 1 || (len(ns) == 1 && ns[0].DefaultVersion != 0)
}

// Lookup returns the description of typ at version; for an unknown version, the newest
// description at or below it (the one n8n's editor would show), else the oldest.
func (c *Catalog) Lookup(typ string, version float64) (*Node, bool) {
	ns := c.nodes(typ)
	if len(ns) == 0 {
		return nil, false
	}
	var best *Node
	bestV := math.Inf(-1)
	for _, n := range ns {
		for _, v := range n.Versions {
			if sameVersion(v, version) {
				return n, true
			}
			if v <= version && v > bestV {
				best, bestV = n, v
			}
		}
	}
	if best == nil {
		best = ns[0]
		for _, n := range ns {
			if n.Versions[0] < best.Versions[0] {
				best = n
			}
		}
	}
	return best, true
}

// HasVersion reports whether version is one of typ's versions.
func (c *Catalog) HasVersion(typ string, version float64) bool {
	for _, v := range c.Versions(typ) {
		if sameVersion(v, version) {
			return true
		}
	}
	return false
}

func sameVersion(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Prop returns the first top-level property called name.
func (n *Node) Prop(name string) *Prop {
	if n.props.byName != nil {
		if vs := n.props.byName[name]; len(vs) > 0 {
			return vs[0]
		}
		return nil
	}
	for _, p := range n.Props {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// IsSubNode reports whether the node only feeds another node through an ai_* connection:
// it has no main input and its only outputs are ai_*.
func (n *Node) IsSubNode() bool {
	if n.Outputs == nil && n.DynOutputs == nil {
		return false
	}
	for _, p := range n.Outputs {
		if p.Type == "main" {
			return false
		}
	}
	for _, t := range n.DynOutputs {
		if t == "main" {
			return false
		}
	}
	return len(n.Outputs) > 0 || len(n.DynOutputs) > 0
}

// ShortType is the type without its package prefix: "if" for n8n-nodes-base.if.
func ShortType(typ string) string {
	if i := strings.LastIndexByte(typ, '.'); i >= 0 {
		return typ[i+1:]
	}
	return typ
}

// Package prefixes of the catalogued packages.
const (
	BasePrefix      = "n8n-nodes-base."
	LangchainPrefix = "@n8n/n8n-nodes-langchain."
)

// Official reports whether typ belongs to a catalogued package, so that seam may call it
// unknown; community node types are not in the catalog.
func Official(typ string) bool {
	return strings.HasPrefix(typ, BasePrefix) || strings.HasPrefix(typ, LangchainPrefix)
}

// ToolVariant is what n8n synthesises for a node usable as a tool: <type>Tool, with no
// inputs, one ai_tool output, and the tool description properties in front.
func ToolVariant(n *Node) *Node {
	t := *n
	t.Type = n.Type + "Tool"
	t.ToolOf = n.Type
	t.DisplayName = n.DisplayName + " Tool"
	t.Trigger = false
	t.UsableAsTool = false
	t.Inputs = []Port{}
	t.DynInputs = nil
	t.Outputs = []Port{{Type: "ai_tool", Name: "Tool"}}
	t.DynOutputs = nil
	t.OutputNames = nil
	t.Props = append([]*Prop{
		{Name: "descriptionType", Type: "options", Default: "auto", Options: []any{"auto", "manual"}},
		{Name: "toolDescription", Type: "string", Default: "", Required: true,
			Show: Cond{"descriptionType": {"manual"}}},
	}, n.Props...)
	return &t
}
