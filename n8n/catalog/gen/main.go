// Command gen writes n8n/catalog/catalog.pack from the dist/types/nodes.json files of the
// n8n-nodes-base and @n8n/n8n-nodes-langchain packages of an installed n8n (the one
// scripts/n8n-server.sh installs, pinned). Run it by hand from the repository root after
// changing the pinned n8n version, and commit its output:
//
//	scripts/n8n-server.sh install
//	go run ./n8n/catalog/gen [-n8n DIR] [-out n8n/catalog/catalog.pack]
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/seam-dag/seam/n8n/catalog"
)

// pinned is the n8n version scripts/n8n-server.sh installs; keep the two in step.
const pinned = "2.8.4"

func main() {
	home, _ := os.UserHomeDir()
	dir := flag.String("n8n", filepath.Join(home, ".cache", "seam", "n8n-"+pinned), "n8n install folder (holds node_modules)")
	out := flag.String("out", filepath.Join("n8n", "catalog", "catalog.pack"), "catalog file to write")
	flag.Parse()
	if err := run(*dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

var packages = []struct{ name, prefix string }{
	{"n8n-nodes-base", catalog.BasePrefix},
	{"@n8n/n8n-nodes-langchain", catalog.LangchainPrefix},
}

func run(dir, out string) error {
	nm := filepath.Join(dir, "node_modules")
	h := catalog.Header{Packages: map[string]string{}}
	v, err := pkgVersion(filepath.Join(nm, "n8n"))
	if err != nil {
		return err
	}
	h.N8N = v
	byType := map[string][]*catalog.Node{}
	tools := map[string]bool{}
	for _, p := range packages {
		pdir := filepath.Join(nm, filepath.FromSlash(p.name))
		v, err := pkgVersion(pdir)
		if err != nil {
			return err
		}
		h.Packages[p.name] = v
		raw, err := os.ReadFile(filepath.Join(pdir, "dist", "types", "nodes.json"))
		if err != nil {
			return fmt.Errorf("read %s nodes: %w", p.name, err)
		}
		var descs []map[string]any
		if err := json.Unmarshal(raw, &descs); err != nil {
			return fmt.Errorf("decode %s nodes.json: %w", p.name, err)
		}
		for _, d := range descs {
			n, err := convert(p.prefix, d)
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			byType[n.Type] = append(byType[n.Type], n)
			if n.UsableAsTool {
				tools[n.Type] = true
			}
		}
	}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	sort.Strings(types)
	var blobs bytes.Buffer
	plain := 0
	for _, t := range types {
		ns := byType[t]
		sort.Slice(ns, func(i, j int) bool { return ns[i].Versions[0] < ns[j].Versions[0] })
		js, err := json.Marshal(ns)
		if err != nil {
			return fmt.Errorf("encode %s: %w", t, err)
		}
		plain += len(js)
		z, err := compress(js)
		if err != nil {
			return err
		}
		e := catalog.Entry{Type: t, Off: blobs.Len(), Len: len(z)}
		blobs.Write(z)
		h.Types = append(h.Types, e)
		// n8n offers a node usable as a tool as <type>Tool too, unless that name is taken.
		if tools[t] && byType[t+"Tool"] == nil {
			e.Type, e.ToolOf = t+"Tool", t
			h.Types = append(h.Types, e)
		}
	}
	sort.Slice(h.Types, func(i, j int) bool { return h.Types[i].Type < h.Types[j].Type })
	hj, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode header: %w", err)
	}
	hz, err := compress(hj)
	if err != nil {
		return err
	}
	var pack bytes.Buffer
	pack.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(hz))))
	pack.Write(hz)
	pack.Write(blobs.Bytes())
	if _, err := catalog.Open(pack.Bytes()); err != nil {
		return fmt.Errorf("the pack does not read back: %w", err)
	}
	if err := os.WriteFile(out, pack.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	fmt.Printf("wrote %s: %d node types (%d tool variants), n8n %s, n8n-nodes-base %s, @n8n/n8n-nodes-langchain %s; %d bytes of JSON, %d bytes packed\n",
		out, len(h.Types), len(tools), h.N8N, h.Packages["n8n-nodes-base"], h.Packages["@n8n/n8n-nodes-langchain"], plain, pack.Len())
	return nil
}

func compress(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(b); err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	return buf.Bytes(), nil
}

func pkgVersion(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("read package version: %w", err)
	}
	var p struct{ Version string }
	if err := json.Unmarshal(b, &p); err != nil || p.Version == "" {
		return "", fmt.Errorf("%s/package.json: no version", dir)
	}
	return p.Version, nil
}

func convert(prefix string, d map[string]any) (*catalog.Node, error) {
	name, _ := d["name"].(string)
	if name == "" {
		return nil, errors.New("a node description without a name")
	}
	n := &catalog.Node{Type: prefix + name}
	n.DisplayName, _ = d["displayName"].(string)
	switch v := d["version"].(type) {
	case float64:
		n.Versions = []float64{v}
	case []any:
		for _, x := range v {
			if f, ok := x.(float64); ok {
				n.Versions = append(n.Versions, f)
			}
		}
	}
	if len(n.Versions) == 0 {
		return nil, fmt.Errorf("%s: no version", n.Type)
	}
	sort.Float64s(n.Versions)
	n.DefaultVersion, _ = d["defaultVersion"].(float64)
	for _, g := range asSlice(d["group"]) {
		if g == "trigger" {
			n.Trigger = true
		}
	}
	if _, ok := d["polling"]; ok {
		n.Trigger = true
	}
	n.Hidden, _ = d["hidden"].(bool)
	_, n.Webhook = d["webhooks"]
	n.Inputs, n.DynInputs = ports(d["inputs"])
	n.Outputs, n.DynOutputs = ports(d["outputs"])
	for _, o := range asSlice(d["outputNames"]) {
		s, _ := o.(string)
		n.OutputNames = append(n.OutputNames, s)
	}
	n.UsableAsTool = d["usableAsTool"] != nil && d["usableAsTool"] != false
	for _, p := range asSlice(d["properties"]) {
		if m, ok := p.(map[string]any); ok {
			if cp := prop(m); cp != nil {
				n.Props = append(n.Props, cp)
			}
		}
	}
	for _, c := range asSlice(d["credentials"]) {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		cr := catalog.Cred{}
		cr.Name, _ = m["name"].(string)
		cr.Required, _ = m["required"].(bool)
		cr.Show, cr.Hide = display(m["displayOptions"])
		n.Credentials = append(n.Credentials, cr)
	}
	return n, nil
}

// connTypes finds the connection types an input/output expression can produce.
var connTypes = regexp.MustCompile(`\b(ai_[A-Za-z]+|main)\b`)

// ports reads static ports, or, for an expression, the connection types it names.
func ports(v any) ([]catalog.Port, []string) {
	if s, ok := v.(string); ok {
		seen := map[string]bool{}
		var types []string
		for _, m := range connTypes.FindAllString(s, -1) {
			if !seen[m] {
				seen[m] = true
				types = append(types, m)
			}
		}
		sort.Strings(types)
		if types == nil {
			types = []string{}
		}
		return nil, types
	}
	ps := []catalog.Port{}
	for _, x := range asSlice(v) {
		switch p := x.(type) {
		case string:
			ps = append(ps, catalog.Port{Type: p})
		case map[string]any:
			cp := catalog.Port{}
			cp.Type, _ = p["type"].(string)
			cp.Name, _ = p["displayName"].(string)
			cp.Required, _ = p["required"].(bool)
			if m, ok := p["maxConnections"].(float64); ok {
				cp.Max = int(m)
			}
			ps = append(ps, cp)
		}
	}
	return ps, nil
}

// skipped property types carry no value.
var skipped = map[string]bool{"notice": true, "callout": true, "button": true, "curlImport": true}

func prop(m map[string]any) *catalog.Prop {
	p := &catalog.Prop{}
	p.Name, _ = m["name"].(string)
	p.Type, _ = m["type"].(string)
	if skipped[p.Type] || p.Name == "" {
		return nil
	}
	p.Required, _ = m["required"].(bool)
	p.NoExpr, _ = m["noDataExpression"].(bool)
	p.Show, p.Hide = display(m["displayOptions"])
	p.Default, p.BigDefault = compactDefault(m["default"])
	to, _ := m["typeOptions"].(map[string]any)
	if to != nil {
		p.Multiple, _ = to["multipleValues"].(bool)
		if to["loadOptionsMethod"] != nil || to["loadOptions"] != nil || to["loadOptionsDependsOn"] != nil {
			p.Dynamic = true
		}
	}
	opts := asSlice(m["options"])
	switch p.Type {
	case "options", "multiOptions":
		for _, o := range opts {
			if om, ok := o.(map[string]any); ok {
				p.Options = append(p.Options, om["value"])
			}
		}
		if len(p.Options) == 0 {
			p.Dynamic = true
		}
	case "collection":
		for _, o := range opts {
			if om, ok := o.(map[string]any); ok {
				if sp := prop(om); sp != nil {
					p.Sub = append(p.Sub, sp)
				}
			}
		}
	case "fixedCollection":
		for _, o := range opts {
			om, ok := o.(map[string]any)
			if !ok {
				continue
			}
			g := catalog.Group{}
			g.Name, _ = om["name"].(string)
			for _, v := range asSlice(om["values"]) {
				if vm, ok := v.(map[string]any); ok {
					if sp := prop(vm); sp != nil {
						g.Props = append(g.Props, sp)
					}
				}
			}
			p.Groups = append(p.Groups, g)
		}
	}
	return p
}

// compactDefault keeps short scalar defaults (displayOptions compare against them) and
// empty values; a long default is replaced by the mark that it is not empty.
func compactDefault(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, false
	case string:
		if len(x) > 80 {
			return nil, true
		}
		return x, false
	case bool, float64:
		return x, false
	case []any:
		if len(x) == 0 {
			return x, false
		}
	case map[string]any:
		if len(x) == 0 {
			return x, false
		}
		// resourceLocator defaults: {mode, value}; keep them, they are small.
		if b, _ := json.Marshal(x); len(b) <= 80 {
			return x, false
		}
	}
	return nil, true
}

func display(v any) (show, hide catalog.Cond) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil
	}
	return cond(m["show"]), cond(m["hide"])
}

func cond(v any) catalog.Cond {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil
	}
	c := catalog.Cond{}
	for k, vals := range m {
		c[k] = asSlice(vals)
	}
	return c
}

func asSlice(v any) []any {
	if s, ok := v.([]any); ok {
		return s
	}
	return nil
}
