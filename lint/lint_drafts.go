package lint

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/contract/subset"
	"github.com/seam-dag/seam/dag"
)

// drafts warns where a contract's declared draft ignores what the contract writes: a keyword
// the draft does not define, keywords beside a $ref up to draft-07, a $schema below a
// resource's root. The validator follows the draft, so those words constrain nothing. Each
// schema document is judged once, however many nodes use it, at the keyword's place in the
// schema file (or in the DAG file for an inline schema).
func (l *linter) drafts() []Finding {
	var out []Finding
	seen := map[string]bool{}
	judge := func(s *contract.Schema, what string, at dag.Pos, producer string) {
		if s == nil || s.IsEffective() || seen[s.Location()] {
			return
		}
		seen[s.Location()] = true
		for _, ig := range subset.IgnoredKeywords(s.Source()) {
			f := Finding{Pos: l.schemaPos(s, ig.Pointer, at), Severity: SeverityWarning}
			if producer != "" {
				f.Producers = []string{producer}
			}
			switch ig.Kind {
			case subset.Undefined:
				f.Code = CodeUndefinedKeyword
				f.Message, f.Hint = l.text.undefinedKeyword(what, ig)
			case subset.BesideRef:
				f.Code = CodeBesideRef
				f.Message, f.Hint = l.text.besideRef(what, ig)
			default:
				f.Code = CodeSchemaNotAtRoot
				f.Message, f.Hint = l.text.schemaNotAtRoot(what, ig)
			}
			out = append(out, f)
		}
	}
	judge(l.d.Params, l.text.paramsWhat(), dag.Pos{File: l.d.File, Line: 1, Col: 1}, "")
	for _, n := range l.d.Nodes {
		judge(n.InputContract, l.text.contractWhat(n.ID, "input"), n.Pos, "")
		judge(n.OutputContract, l.text.contractWhat(n.ID, "output"), n.Pos, n.ID)
	}
	return out
}

// schemaPos is where the keyword at ptr of s is written: in its file, or in the DAG file
// for an inline schema (whose location is file:line:col); at when the source is not at hand.
func (l *linter) schemaPos(s *contract.Schema, ptr string, at dag.Pos) dag.Pos {
	loc := s.Location()
	if b, ok := l.source(loc); ok {
		if line, col, ok := jsonPos(b, contract.PointerTokens(ptr)); ok {
			return dag.Pos{File: loc, Line: line, Col: col}
		}
		return at
	}
	i := strings.LastIndexByte(loc, ':')
	j := strings.LastIndexByte(loc[:max(i, 0)], ':')
	if j < 0 {
		return at
	}
	line, err1 := strconv.Atoi(loc[j+1 : i])
	col, err2 := strconv.Atoi(loc[i+1:])
	b, ok := l.source(loc[:j])
	if err1 != nil || err2 != nil || !ok {
		return at
	}
	if line, col, ok := yamlPos(b, line, col, contract.PointerTokens(ptr)); ok {
		return dag.Pos{File: loc[:j], Line: line, Col: col}
	}
	return at
}

// source is a file the DAG's load read, by the path the loader named it or its absolute form.
func (l *linter) source(path string) ([]byte, bool) {
	if s, ok := l.d.Sources[path]; ok {
		return s.Data, true
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, false
	}
	for p, s := range l.d.Sources {
		if a, err := filepath.Abs(p); err == nil && a == abs {
			return s.Data, true
		}
	}
	return nil, false
}

// jsonPos is the line and column (1-based, in characters) of the member name or array item
// that tokens lead to in the JSON document b.
func jsonPos(b []byte, tokens []string) (line, col int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var find func(rest []string) (int64, bool)
	find = func(rest []string) (int64, bool) {
		t, err := dec.Token()
		if err != nil || len(rest) == 0 {
			return 0, false
		}
		var skip json.RawMessage
		switch t {
		case json.Delim('{'):
			for dec.More() {
				at := dec.InputOffset()
				k, err := dec.Token()
				if err != nil {
					return 0, false
				}
				if k == rest[0] {
					if len(rest) == 1 {
						return at, true
					}
					return find(rest[1:])
				}
				if dec.Decode(&skip) != nil {
					return 0, false
				}
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if strconv.Itoa(i) == rest[0] {
					if len(rest) == 1 {
						return dec.InputOffset(), true
					}
					return find(rest[1:])
				}
				if dec.Decode(&skip) != nil {
					return 0, false
				}
			}
		}
		return 0, false
	}
	off, ok := find(tokens)
	if !ok {
		return 0, 0, false
	}
	// The offset is where the previous token ended: the name starts after blanks and a comma.
	for off < int64(len(b)) && strings.IndexByte(" \t\r\n,", b[off]) >= 0 {
		off++
	}
	before := b[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col, true
}

// yamlPos is the position of the key or item that tokens lead to inside the mapping written
// at line:col of the YAML document b.
func yamlPos(b []byte, line, col int, tokens []string) (int, int, bool) {
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil {
		return 0, 0, false
	}
	var at func(n *yaml.Node) *yaml.Node
	at = func(n *yaml.Node) *yaml.Node {
		if n.Line == line && n.Column == col && n.Kind == yaml.MappingNode {
			return n
		}
		for _, c := range n.Content {
			if m := at(c); m != nil {
				return m
			}
		}
		return nil
	}
	n := at(&doc)
	for i, t := range tokens {
		if n == nil {
			return 0, 0, false
		}
		for n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		var key, val *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == t {
					key, val = n.Content[j], n.Content[j+1]
				}
			}
		case yaml.SequenceNode:
			if k, err := strconv.Atoi(t); err == nil && k >= 0 && k < len(n.Content) {
				key, val = n.Content[k], n.Content[k]
			}
		}
		if key == nil {
			return 0, 0, false
		}
		if i == len(tokens)-1 {
			return key.Line, key.Column, true
		}
		n = val
	}
	return 0, 0, false
}
