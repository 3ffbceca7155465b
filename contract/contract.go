// Package contract is seam's JSON Schema (draft 2020-12) work: it compiles schemas,
// validates values against them, reporting each violation with its instance pointer, schema
// keyword, value excerpt and a message in English or Japanese, and infers a schema from
// samples. Whether one schema's values all fit another is decided by contract/subset.
//
// Of seam it imports only internal/i18n, a leaf that says its messages: the standard output
// contract is handed in by the caller.
package contract

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Violation is one way a value breaks a schema.
//
// For a missing member (required, dependentRequired) Pointer names the member that should be
// there and Value is empty; for a forbidden member (additionalProperties) it names that member.
type Violation struct {
	Pointer string `json:"pointer"`         // JSON Pointer to the instance location ("" is the root)
	Keyword string `json:"keyword"`         // JSON Pointer to the failing keyword within the schema
	Value   string `json:"value,omitempty"` // the offending value as JSON, truncated
	Message string `json:"message"`
}

// At is where the violation is, for people: its pointer, "/" for the root.
func (v Violation) At() string {
	if v.Pointer == "" {
		return "/"
	}
	return v.Pointer
}

// ErrRemoteRef is returned when a schema refers to a remote document: loading never touches
// the network.
var ErrRemoteRef = errors.New("remote $ref refused")

// SchemaError reports a schema that cannot be compiled: it breaks the draft's metaschema, has a
// bad regular expression, a $ref that resolves nowhere or to a remote document, or is not JSON.
type SchemaError struct {
	// Location is the document the problem is in: a file path, or the location given to
	// Inline. It can differ from the schema being compiled when a $ref'd file is at fault.
	Location string
	// Pointer is the JSON Pointer into that document's value where the problem is, "" if
	// unknown.
	Pointer string
	Err     error
}

func (e *SchemaError) Error() string {
	var b strings.Builder
	b.WriteString("schema")
	if e.Location != "" {
		b.WriteString(" " + e.Location)
	}
	if e.Pointer != "" {
		b.WriteString(" at " + e.Pointer)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *SchemaError) Unwrap() error { return e.Err }

// Options configure a Compiler.
type Options struct {
	// Standard is the standard output contract (JSON); Effective combines it with a node's
	// declared contract.
	Standard []byte
	// AssertContent makes contentEncoding, contentMediaType and contentSchema assertions;
	// draft 2020-12 treats them as annotations, so they are off by default.
	AssertContent bool
	// Root, when set, confines the files the compiler reads (schema files and every file
	// $ref) to this directory, symlinks resolved: a server that compiles what clients send
	// must not read what lies outside the folder it serves.
	Root string
	// ReadFile reads schema files (seam passes one that refuses named pipes, devices and
	// files over a size limit); nil is os.ReadFile.
	ReadFile func(path string) ([]byte, error)
	// AnnotateFormat makes `format` an annotation, as draft 2020-12 has it by default, for
	// schemas written for tools that do not check it: validation ignores it and subset.Check
	// treats it as no constraint. By default seam asserts it (a contract that says
	// date-time means it).
	AnnotateFormat bool
	// Catalog names folders of vendored schemas that absolute-URL $refs resolve to (see
	// CatalogEntry); no other URL is ever loaded.
	Catalog []CatalogEntry
	// Files, when set, keeps the schema files File compiles for every Compiler given it
	// (see FileCache); nil compiles each file in each Compiler.
	Files *FileCache
}

// ErrOutsideRoot is returned (wrapped) when a schema file or $ref lies outside Options.Root.
var ErrOutsideRoot = errors.New("outside the root")

// Compiler compiles schemas from files and inline values. It is not safe for concurrent use;
// the schemas it returns are.
type Compiler struct {
	c        *jsonschema.Compiler
	standard *Schema
	n        int               // numbers the URLs of inline and effective schemas
	docs     *docSet           // document URL → the JSON value loaded or added there
	names    map[string]string // document URL → how errors name it (path or inline location)
	files    map[string]*Schema
	root     string // Options.Root, absolute with symlinks resolved; "" reads anywhere
	// sizes counts the subschemas of the documents registered since the schema being
	// compiled was asked for, against MaxSubschemas.
	sizes    sizer
	readFile func(path string) ([]byte, error)
	// annotateFormat is Options.AnnotateFormat.
	annotateFormat bool
	catalog        *catalog // Options.Catalog; nil without one
	// opts are the options c was made with, for the Compiler a FileCache compiles a file in.
	opts Options
	// added are the documents given to c.c by URL (inline and effective schemas), in order,
	// for a new c.c to be given them again (see prune.go).
	added []addedDoc
	// reach is what c compiles of the large files its schemas refer to (see prune.go).
	reach reach
	// idOwner maps a root id that docs also holds a document under to that document's URL.
	idOwner map[string]string
}

type addedDoc struct {
	u   string
	doc any
}

// Schema is a compiled schema and the JSON value it was compiled from.
type Schema struct {
	compiled *jsonschema.Schema
	source   any
	location string
	owner    *Compiler
	// docs are the documents the schema may reach, to quote numbers as the schema wrote them
	// (1.0 stays "1.0"): the compiler's, shared, so that compiling n schemas costs n, not n².
	docs *docSet
	// effective marks a schema made by Effective, whose /allOf/N/$ref hops are hidden in
	// keyword pointers.
	effective bool
	// parts are an effective schema's parts' documents (Docs).
	parts []Doc
	// members are the parts of an effective schema whose parts come from more than one
	// Compiler (a contract file from a FileCache beside the loader's standard contract):
	// it validates each and reports their violations as one allOf would; nil otherwise.
	members []*Schema
}

// URL prefixes of documents that exist only in memory.
const (
	inlineBase    = "seam:///inline/"
	effectiveBase = "seam:///effective/"
)

// NewCompiler returns a Compiler that refuses remote references.
func NewCompiler(opts Options) (*Compiler, error) {
	c := &Compiler{
		docs:    &docSet{m: make(map[string]any)},
		names:   make(map[string]string),
		files:   make(map[string]*Schema),
		idOwner: make(map[string]string),
	}
	c.opts = opts
	if c.readFile = opts.ReadFile; c.readFile == nil {
		c.readFile = os.ReadFile
	}
	c.annotateFormat = opts.AnnotateFormat
	c.c = c.newJSONSchema()
	if len(opts.Catalog) > 0 {
		cat, err := newCatalog(opts.Catalog)
		if err != nil {
			return nil, err
		}
		c.catalog = cat
	}
	if opts.Root != "" {
		root, err := filepath.Abs(opts.Root)
		if err == nil {
			root, err = filepath.EvalSymlinks(root)
		}
		if err != nil {
			return nil, fmt.Errorf("schema root %s: %w", opts.Root, err)
		}
		c.root = root
	}
	if opts.Standard != nil {
		v, err := ParseJSON(opts.Standard)
		if err != nil {
			return nil, fmt.Errorf("standard contract: %w", err)
		}
		s, err := c.Inline("standard output contract", v)
		if err != nil {
			return nil, fmt.Errorf("standard contract: %w", err)
		}
		c.standard = s
	}
	return c, nil
}

// newJSONSchema is a jsonschema compiler set up as c's options say, loading through c.
func (c *Compiler) newJSONSchema() *jsonschema.Compiler {
	js := jsonschema.NewCompiler()
	js.DefaultDraft(jsonschema.Draft2020)
	js.RegisterFormat(&jsonschema.Format{Name: "uri-template", Validate: uriTemplate})
	js.RegisterFormat(&jsonschema.Format{Name: "uri", Validate: uriFormat})
	js.RegisterFormat(&jsonschema.Format{Name: "uri-reference", Validate: uriReferenceFormat})
	js.RegisterFormat(&jsonschema.Format{Name: "ipv4", Validate: ipv4Format})
	js.RegisterFormat(&jsonschema.Format{Name: "hostname", Validate: hostnameFormat})
	js.RegisterFormat(&jsonschema.Format{Name: "idn-hostname", Validate: idnHostnameFormat})
	js.RegisterFormat(&jsonschema.Format{Name: "duration", Validate: durationFormat})
	js.RegisterFormat(&jsonschema.Format{Name: "email", Validate: emailFormat})
	js.RegisterFormat(&jsonschema.Format{Name: "idn-email", Validate: idnEmailFormat})
	js.RegisterFormat(&jsonschema.Format{Name: "iri", Validate: iriFormat})
	js.RegisterFormat(&jsonschema.Format{Name: "iri-reference", Validate: iriReferenceFormat})
	js.UseRegexpEngine(compilePattern)
	if !c.opts.AnnotateFormat {
		js.AssertFormat()
	}
	if c.opts.AssertContent {
		js.AssertContent()
	}
	js.UseLoader(fileLoader{c})
	return js
}

// Standard returns the standard output contract, or nil when none was given.
func (c *Compiler) Standard() *Schema { return c.standard }

// Inline compiles a schema given as a decoded JSON or YAML value (see Normalize); location
// names it in errors. Relative file $refs cannot resolve: use InlineAt.
func (c *Compiler) Inline(location string, v any) (*Schema, error) {
	c.n++
	return c.inline(fmt.Sprintf("%s%d.json", inlineBase, c.n), location, v)
}

// InlineAt is Inline for a schema written inside a file in dir (a DAG file's inline
// contract): its relative $refs resolve against dir.
func (c *Compiler) InlineAt(dir, location string, v any) (*Schema, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", location, err)
	}
	c.n++
	// The name only has to be unique; the document never exists on disk.
	return c.inline(fileURL(filepath.Join(abs, fmt.Sprintf(".seam-inline-%d.json", c.n))), location, v)
}

func (c *Compiler) inline(u, location string, v any) (*Schema, error) {
	c.sizes = sizer{}
	doc, ptr, err := normalize(v, "")
	if err != nil {
		return nil, &SchemaError{Location: location, Pointer: ptr, Err: err}
	}
	if err := c.register(u, location, doc); err != nil {
		return nil, err
	}
	if err := c.addResource(u, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", location, err)
	}
	return c.compile(u, location, doc)
}

// File compiles the schema file at path; its relative $refs resolve against the file. A file
// compiled twice yields the same Schema; with Options.Files, one compiled by another Compiler
// of the same options when the files it read are unchanged (Effective combines it all the
// same).
func (c *Compiler) File(path string) (*Schema, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", path, err)
	}
	u := fileURL(abs)
	if s, ok := c.files[u]; ok {
		return s, nil
	}
	if c.opts.Files != nil {
		s, err := c.opts.Files.file(c, path, abs)
		if err == nil {
			c.files[u] = s
		}
		return s, err
	}
	if _, ok := c.names[u]; !ok {
		c.names[u] = path // errors name the file as the caller did
	}
	c.sizes = sizer{}
	// The loader reads the file (unless a $ref got it already) and registers it.
	s, err := c.compile(u, path, nil)
	if err != nil {
		return nil, err
	}
	c.files[u] = s
	return s, nil
}

// Effective returns one schema that requires all parts (allOf), skipping nil parts; with one
// part it returns that part. All parts must come from c. Violations' keywords start with
// /allOf/N, N being the part's index among the non-nil parts.
func (c *Compiler) Effective(parts ...*Schema) (*Schema, error) {
	var kept []*Schema
	foreign := false
	for _, p := range parts {
		if p == nil {
			continue
		}
		if p.members != nil {
			return nil, fmt.Errorf("effective schema: %s is itself effective over several compilers", p.location)
		}
		foreign = foreign || p.owner != c
		kept = append(kept, p)
	}
	switch len(kept) {
	case 0:
		return nil, errors.New("effective schema: no schema to combine")
	case 1:
		return kept[0], nil
	}
	refs := make([]any, len(kept))
	sources := make([]any, len(kept))
	names := make([]string, len(kept))
	docs := make([]Doc, len(kept))
	for i, p := range kept {
		refs[i] = map[string]any{"$ref": p.compiled.Location}
		sources[i] = p.source
		names[i] = p.location
		docs[i] = p.doc()
	}
	location := "effective(" + strings.Join(names, ", ") + ")"
	if foreign {
		// A part compiled elsewhere cannot be $ref'd from this compiler without compiling it
		// again, which is what a FileCache saves: validate the parts one by one instead.
		return &Schema{source: map[string]any{"allOf": sources}, location: location, owner: c, docs: c.docs,
			effective: true, parts: docs, members: kept}, nil
	}
	c.n++
	u := fmt.Sprintf("%s%d.json", effectiveBase, c.n)
	doc := map[string]any{"allOf": refs}
	c.docs.add(u, doc)
	c.names[u] = location
	if err := c.addResource(u, doc); err != nil {
		return nil, fmt.Errorf("schema %s: %w", location, err)
	}
	s, err := c.compile(u, location, map[string]any{"allOf": sources})
	if err != nil {
		return nil, err
	}
	s.effective, s.parts = true, docs
	return s, nil
}

// compile compiles the document at u; source nil means the loaded document itself.
func (c *Compiler) compile(u, location string, source any) (*Schema, error) {
	compiled, err := c.c.Compile(u)
	if err != nil && c.reach.prunedAny() {
		// A part of a large file left out may be what this schema needs: compile it again
		// with those files whole (prune.go).
		c.wholeAgain()
		compiled, err = c.c.Compile(u)
	}
	if err != nil {
		return nil, c.compileError(location, err)
	}
	if source == nil {
		source = c.docs.get(u)
	}
	return &Schema{
		compiled: compiled,
		source:   source,
		location: location,
		owner:    c,
		docs:     c.docs,
	}, nil
}

// compileError turns jsonschema's errors into SchemaErrors with a pointer where it has one, and
// lets load failures (missing files, refused URLs) through so errors.Is sees them.
func (c *Compiler) compileError(location string, err error) error {
	var (
		load  *jsonschema.LoadURLError
		meta  *jsonschema.SchemaValidationError
		regex *jsonschema.InvalidRegexError
		serr  *SchemaError
	)
	switch {
	case errors.As(err, &load):
		if errors.As(load.Err, &serr) {
			return serr
		}
		// The loader's errors name the file or URL already.
		return fmt.Errorf("schema %s: %w", location, load.Err)
	case errors.As(err, &meta):
		doc, frag := splitURL(meta.URL)
		ptr, msg := metaschemaProblem(ValueAt(c.docs.get(doc), FragmentPointer(frag)), meta.Err)
		return &SchemaError{Location: c.name(doc), Pointer: FragmentPointer(frag) + ptr, Err: errors.New(msg)}
	case errors.As(err, &regex):
		doc, frag := splitURL(regex.URL)
		return &SchemaError{Location: c.name(doc), Pointer: FragmentPointer(frag),
			Err: fmt.Errorf("invalid regular expression %q: %w", regex.Regex, regex.Err)}
	}
	return &SchemaError{Location: location, Err: err}
}

// metaschemaProblem picks the most specific failure of schema against its metaschema: the
// deepest leaf, whose instance location is a pointer into the schema; of leaves equally deep,
// the first in pointer order, since jsonschema reports a schema's members in map order and
// the refusal must name the same place on every compile (leaves at one place come in the
// metaschema's order: the first stays).
func metaschemaProblem(schema any, err error) (ptr, msg string) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "", err.Error()
	}
	en := message.NewPrinter(language.English)
	var best []string
	found := false
	var visit func(e *jsonschema.ValidationError)
	visit = func(e *jsonschema.ValidationError) {
		loc, leaf := e.InstanceLocation, e
		if k, ok := e.ErrorKind.(*kind.PropertyNames); ok {
			// Its causes validated the name alone, so their locations start over: the name
			// is the place, the first cause the reason.
			// jsonschema may have overwritten its location (see nameOwner).
			loc = append(nameOwner(schema, loc, k.Property), k.Property)
			for len(leaf.Causes) > 0 {
				leaf = leaf.Causes[0]
			}
		} else if len(e.Causes) > 0 {
			for _, cause := range e.Causes {
				visit(cause)
			}
			return
		}
		if !found || len(loc) > len(best) || len(loc) == len(best) && comparePointers(loc, best) < 0 {
			best, msg, found = loc, leaf.ErrorKind.LocalizedString(en), true
		}
	}
	visit(ve)
	return pointer(best), msg
}

// name says how errors name the document at URL u.
func (c *Compiler) name(u string) string {
	if n, ok := c.names[u]; ok {
		return n
	}
	if p, err := url.Parse(u); err == nil && p.Scheme == "file" {
		return filepath.FromSlash(p.Path)
	}
	return u
}

// register vets a document before jsonschema sees it (within the limits on depth and size, no
// remote or unresolvable $refs) and keeps it for quoting numbers.
func (c *Compiler) register(u, name string, doc any) error {
	if _, ok := c.names[u]; !ok {
		c.names[u] = name
	}
	if err := c.sizes.schema(doc, "", 0); err != nil {
		err.Location = c.names[u]
		return err
	}
	if err := checkDrafts(doc); err != nil {
		err.Location = c.names[u]
		return err
	}
	if err := checkRefs(u, doc, c.inCatalog); err != nil {
		err.Location = c.names[u]
		return err
	}
	c.docs.add(u, doc)
	c.reach.wants(u, doc)
	// jsonschema finds a document by its root id too, without asking the loader again (a
	// vendored file loaded by its path, that another refers to by URL): so must Doc.Resolve.
	if b, err := url.Parse(u); err == nil {
		if id := rootID(doc, b); id != "" && id != u {
			// The first document to claim an id keeps it; the same document loaded again
			// (whole, after it was loaded pruned) takes its place.
			if owner, ok := c.idOwner[id]; ok && owner == u || !ok && c.docs.get(id) == nil {
				c.idOwner[id] = u
				c.docs.add(id, doc)
			}
		}
	}
	return nil
}

// inCatalog says whether the catalog holds the document at URL u: nil when it does,
// errNotInCatalog when it does not, another error when the catalog cannot be read.
func (c *Compiler) inCatalog(u string) error {
	p, err := c.catalog.file(c, u)
	if err == nil && p == "" {
		err = errNotInCatalog
	}
	return err
}

// docSet holds the documents a compiler has loaded. Documents are added, and replaced only by
// a fuller copy of themselves (a large file loaded whole after it was loaded pruned, see
// prune.go), so a schema validating on one goroutine can read them while the compiler adds
// more on another.
type docSet struct {
	mu sync.RWMutex
	m  map[string]any
}

func (d *docSet) add(u string, doc any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.m[u] = doc
}

func (d *docSet) get(u string) any {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.m[u]
}

// fileLoader is the only way jsonschema gets documents: local files, vetted by register.
type fileLoader struct{ c *Compiler }

func (l fileLoader) Load(u string) (any, error) {
	p, err := url.Parse(u)
	if err != nil {
		return nil, fmt.Errorf("parse $ref %s: %w", u, err)
	}
	var path string
	switch {
	case p.Scheme == "file" && (p.Host == "" || p.Host == "localhost"):
		path = filepath.FromSlash(p.Path)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && l.c.catalog != nil {
			// No such file, but maybe a catalog file's relative id resolved against its
			// folder ("push$event" in octokit's layout names push/event.schema.json).
			file, err := l.c.catalog.file(l.c, u)
			if err != nil {
				return nil, err
			}
			if file != "" {
				path = file
				if _, ok := l.c.names[u]; !ok {
					l.c.names[u] = path
				}
			}
		}
	case p.Scheme == "https" || p.Scheme == "http":
		// A vendored copy from the catalog, registered under the URL it was asked by.
		if path, err = l.c.catalog.file(l.c, u); err != nil {
			return nil, err
		}
		if path == "" {
			return nil, fmt.Errorf("%w: %s (%w)", ErrRemoteRef, u, errNotInCatalog)
		}
		if _, ok := l.c.names[u]; !ok {
			l.c.names[u] = path
		}
	default:
		return nil, fmt.Errorf("%w: %s", ErrRemoteRef, u)
	}
	if err := l.c.confined(path); err != nil {
		return nil, err
	}
	b, err := l.c.readFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := ParseJSON(b)
	if ne := (*NumberError)(nil); errors.As(err, &ne) {
		return nil, &SchemaError{Location: l.c.name(u), Pointer: ne.Pointer, Err: ne}
	}
	if err != nil {
		return nil, &SchemaError{Location: l.c.name(u), Err: fmt.Errorf("not JSON: %w", err)}
	}
	doc = l.c.catalog.rebase(path, doc)
	if len(b) > pruneAbove {
		doc = l.c.reach.prune(u, doc)
	}
	if err := l.c.register(u, l.c.name(u), doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// confined refuses a path outside Options.Root, symlinks resolved.
func (c *Compiler) confined(path string) error {
	if c.root == "" {
		return nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(c.root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%w: %s is outside %s", ErrOutsideRoot, path, c.root)
	}
	return nil
}

// fileURL is the file:// URL of an absolute path, escaped as net/url resolves references.
func fileURL(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// ParseJSON decodes one JSON document, keeping numbers exact (json.Number).
//
// It decodes exactly one document, with only whitespace around it: objects become
// map[string]any, arrays []any, numbers json.Number holding the exact source text, strings
// string, true and false bool, null nil; what it accepts and returns is what encoding/json
// (with UseNumber) does. Errors give the byte offset.
func ParseJSON(b []byte) (any, error) {
	return parseJSON(b)
}

// Source returns the JSON value the schema was compiled from (normalised; see Normalize); for
// an effective schema, {"allOf": [the parts' sources]}. It is shared: do not modify it.
func (s *Schema) Source() any { return s.source }

// IsEffective reports whether s was made by Compiler.Effective from several parts: its
// Source is then {"allOf": [the parts' sources]}, each part a document of its own (its local
// $refs resolve in that part, not in the whole).
func (s *Schema) IsEffective() bool { return s.effective }

// FormatAnnotated reports whether s was compiled with format as an annotation
// (Options.AnnotateFormat): then format constrains nothing.
func (s *Schema) FormatAnnotated() bool { return s.owner != nil && s.owner.annotateFormat }

// Location names where the schema came from.
func (s *Schema) Location() string { return s.location }
