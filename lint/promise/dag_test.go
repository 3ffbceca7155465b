package promise_test

import (
	"encoding/json"
	"fmt"
	"slices"

	"gopkg.in/yaml.v3"
	"pgregory.net/rapid"
)

// omap is a YAML mapping that keeps its keys in order, so that a printed DAG reads as one
// written by hand.
type omap []kv

type kv struct {
	k string
	v any
}

func (o omap) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range o {
		var k, v yaml.Node
		k.SetString(e.k)
		if err := v.Encode(e.v); err != nil {
			return nil, fmt.Errorf("encode %s: %w", e.k, err)
		}
		n.Content = append(n.Content, &k, &v)
	}
	return n, nil
}

// flow is a value printed on one line, as schemas and values are written in a DAG file.
type flow struct{ v any }

func (f flow) MarshalYAML() (any, error) {
	var n yaml.Node
	if err := n.Encode(f.v); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	n.Style = yaml.FlowStyle
	return &n, nil
}

// The places a reference sits, as the run names them when it fails there.
const (
	siteInput   = "input"
	siteWith    = "with" // exec's command and env
	siteWhen    = "when"
	siteForeach = "foreach"
	siteOutputs = "outputs"
	siteParams  = "params" // the params a trigger makes
)

// A read is one reference: a plain path, inside some CEL or some text.
type read struct {
	site string
	form string // plain, text, has, size, sizegt, eq, gt
	path path
	// status: a when that reads its producer's status first,
	// nodes.<id>.status == 'passed' && (…).
	status bool
}

func (r read) expr() string {
	if r.status {
		r.status = false
		return "nodes." + r.path.producer + ".status == 'passed' && (" + r.expr() + ")"
	}
	p := r.path.String()
	switch r.form {
	case "has":
		return "has(" + p + ")"
	case "size":
		return "size(" + p + ")"
	case "sizegt":
		return "size(" + p + ") > 0"
	case "eq":
		return p + " == 'a'"
	case "gt":
		return p + " > 1"
	}
	return p
}

// template is the string the read stands in: exactly one reference, or text around it.
func (r read) template() string {
	if r.form == "text" {
		return "t: ${{ " + r.path.String() + " }}"
	}
	return "${{ " + r.expr() + " }}"
}

type producer struct {
	id   string
	data *schema
	defs defs
}

type consumer struct {
	id    string
	kind  string // transform, echo, cat, foreach
	when  *read
	reads []read
	body  omap // the node as written, but for when
}

// allReads are c's reads, its when's among them.
func (c consumer) allReads() []read {
	if c.when == nil {
		return c.reads
	}
	return append([]read{*c.when}, c.reads...)
}

type spec struct {
	producers []producer
	consumers []consumer
	outputs   []read
	// outNames name the outputs when set (a spec of some of another's outputs); else
	// o1, o2, … in order.
	outNames []string
	// approval, when set, is the approval node "ap" (also among consumers, where its prefill
	// reads are): its form, and the schema of its output's data, which consumers read.
	approval *approval
	// trigger, when set, is a schedule whose params the DAG's params schema takes (issue 38).
	trigger *trigger
}

// approval is an approval node: a form of renderable members, some prefilled from the
// producers; its output's data is the form's fields and the decision.
type approval struct {
	form *schema // an object
	data *schema // form's members and decision
	// prefill are the members prefilled, each with the read that fills it.
	prefill []prefill
}

type prefill struct {
	member string
	read   read
}

// approvalID is the approval node's id: not a producer's (p…), so that the harness takes
// its failures for edges'.
const approvalID = "ap"

// fileDefs are the $defs of the file beside the DAG, every producer's.
func (s spec) fileDefs() map[string]any {
	m := map[string]any{}
	for _, p := range s.producers {
		for _, d := range p.defs.file {
			m[d.name] = d.s.render(false)
		}
	}
	return m
}

// genSpec draws a DAG: one or two const producers and one to three consumers.
func genSpec(t *rapid.T) spec {
	var sp spec
	for i := range rapid.IntRange(1, 2).Draw(t, "producers") {
		p := producer{id: fmt.Sprintf("p%d", i+1)}
		p.defs.prefix = p.id
		p.data = genKind(t, &p.defs, 3, p.id, "object")
		p.data.nullable = false // the standard contract wants data an object
		sp.producers = append(sp.producers, p)
	}
	pickProducer := func(label string) path {
		p := sp.producers[rapid.IntRange(0, len(sp.producers)-1).Draw(t, label+".producer")]
		return genPath(t, p.id, p.data, label)
	}
	pick := pickProducer
	if rapid.IntRange(0, 2).Draw(t, "approval") == 0 {
		c := genApproval(t, &sp, pickProducer)
		sp.consumers = append(sp.consumers, c)
		readable := append(slices.Clone(sp.producers), producer{id: approvalID, data: sp.approval.data})
		pick = func(label string) path {
			p := readable[rapid.IntRange(0, len(readable)-1).Draw(t, label+".producer")]
			r := genPath(t, p.id, p.data, label)
			if p.id == approvalID && len(r.steps) == 1 && r.steps[0].name == "summary" {
				// The approval's summary is the engine's ("title: decision"), not drawn:
				// no run could break a consumer that asks more of it than the contract.
				r.steps, r.end = []step{{name: "data"}}, p.data
			}
			return r
		}
	}
	for i := range rapid.IntRange(1, 3).Draw(t, "consumers") {
		// c1… read the approval's answer too; ap reads only the producers (its prefill).
		sp.consumers = append(sp.consumers, genConsumer(t, fmt.Sprintf("c%d", i+1), pick))
	}
	if rapid.IntRange(0, 2).Draw(t, "trigger") == 0 {
		sp.trigger = genTrigger(t)
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "outputs") {
		label := fmt.Sprintf("o%d", i+1)
		form := rapid.SampledFrom([]string{"plain", "plain", "plain", "text", "has"}).Draw(t, label+".form")
		p := pick(label)
		if form == "has" && !p.lastIsMember() {
			form = "plain"
		}
		sp.outputs = append(sp.outputs, read{site: siteOutputs, form: form, path: p})
	}
	return sp
}

// genApproval draws the approval node: a form of one to three members, each a scalar, an
// enum, a list of scalars or an object of them (what the web view renders), some prefilled
// by a plain read of a producer whose value fits the member; approvers anyone, and a reject
// that continues, so that a run goes on whatever the answer decides.
func genApproval(t *rapid.T, sp *spec, pick func(string) path) consumer {
	ap := &approval{form: &schema{kind: "object"}}
	c := consumer{id: approvalID, kind: "approval"}
	prefilled := omap{}
	for i := range rapid.IntRange(1, 3).Draw(t, "ap.members") {
		name := memberNames[i]
		label := "ap." + name
		var ms *schema
		if rapid.IntRange(0, 2).Draw(t, label+".prefill") == 0 {
			// A member of the type the read ends in: prefill is proved against the form.
			p := pick(label + ".from")
			if p.end != nil && slices.Contains([]string{"integer", "string", "boolean", "number"}, p.end.kind) {
				ms = p.end
				r := read{site: siteWith, form: "plain", path: p}
				ap.prefill = append(ap.prefill, prefill{member: name, read: r})
				c.reads = append(c.reads, r)
				prefilled = append(prefilled, kv{name, r.template()})
			}
		}
		if ms == nil {
			ms = genFormMember(t, 1, label)
		}
		ap.form.props = append(ap.form.props, prop{name: name, required: rapid.Bool().Draw(t, label+".required"), s: ms})
	}
	ap.form.closed = rapid.IntRange(0, 2).Draw(t, "ap.closed") == 0
	ap.data = &schema{kind: "object", props: append(slices.Clone(ap.form.props),
		prop{name: "decision", required: true, s: &schema{kind: "string", enum: []string{"approve", "reject"}}})}
	with := omap{{"title", "Go on?"}, {"form", flow{ap.form.render(true)}}}
	if len(prefilled) > 0 {
		with = append(with, kv{"prefill", flow{prefilled}})
	}
	with = append(with, kv{"approvers", "anyone"}, kv{"on_reject", "continue"})
	c.body = omap{{"type", "approval"}, {"with", with}}
	sp.approval = ap
	return c
}

// genFormMember draws a member of an approval's form the web view renders: a scalar, an
// enum, a list of scalars, or (depth > 0) an object of those.
func genFormMember(t *rapid.T, depth int, label string) *schema {
	scalar := func(label string) *schema {
		var ds defs // a scalar draws no $defs
		return genKind(t, &ds, 0, label, rapid.SampledFrom([]string{"integer", "string", "boolean", "number"}).Draw(t, label+".kind"))
	}
	switch rapid.IntRange(0, 5).Draw(t, label+".shape") {
	case 0:
		return &schema{kind: "array", items: scalar(label + "[]"), minItems: rapid.IntRange(0, 2).Draw(t, label+".minItems")}
	case 1:
		if depth == 0 {
			break
		}
		s := &schema{kind: "object"}
		for i := range rapid.IntRange(1, 2).Draw(t, label+".members") {
			name := memberNames[i]
			s.props = append(s.props, prop{name: name, required: rapid.Bool().Draw(t, label+"."+name+".required"), s: genFormMember(t, depth-1, label+"."+name)})
		}
		return s
	}
	return scalar(label)
}

const program = `{status: "pass", summary: "ok"}`

func genConsumer(t *rapid.T, id string, pick func(string) path) consumer {
	c := consumer{id: id, kind: rapid.SampledFrom([]string{"transform", "transform", "echo", "cat", "foreach"}).Draw(t, id+".kind")}
	if rapid.IntRange(0, 2).Draw(t, id+".guarded") == 0 {
		p := pick(id + ".when")
		form := rapid.SampledFrom([]string{"plain", "has", "sizegt", "eq", "gt"}).Draw(t, id+".when.form")
		if form == "has" && !p.lastIsMember() {
			form = "sizegt"
		}
		c.when = &read{site: siteWhen, form: form, path: p, status: rapid.IntRange(0, 3).Draw(t, id+".when.status") == 0}
	}
	valueRead := func(site, label string) read {
		p := pick(label)
		form := rapid.SampledFrom([]string{"plain", "plain", "plain", "plain", "text", "has", "size", "eq"}).Draw(t, label+".form")
		if form == "has" && !p.lastIsMember() {
			form = "plain"
		}
		return read{site: site, form: form, path: p}
	}
	c.body = omap{{"type", "transform"}}
	switch c.kind {
	case "transform", "cat":
		input := omap{}
		props := map[string]any{}
		var required []any
		if c.kind == "cat" {
			c.body[0].v = "exec"
			input = omap{{"status", "pass"}, {"summary", "ok"}}
		}
		for k := range rapid.IntRange(1, 3).Draw(t, id+".keys") {
			key := fmt.Sprintf("k%d", k+1)
			r := valueRead(siteInput, id+"."+key)
			c.reads = append(c.reads, r)
			input = append(input, kv{key, r.template()})
			props[key] = consumerSchema(t, r, id+"."+key)
			if rapid.Bool().Draw(t, id+"."+key+".required") {
				required = append(required, key)
			}
		}
		c.body = append(c.body, kv{"input", flow{input}})
		if c.kind == "cat" {
			c.body = append(c.body, kv{"with", omap{{"command", []any{"cat"}}, {"output", "json"}}})
		} else {
			c.body = append(c.body, kv{"with", omap{{"program", program}}})
		}
		if rapid.IntRange(0, 2).Draw(t, id+".contract") > 0 {
			in := omap{{"type", "object"}}
			if required != nil {
				in = append(in, kv{"required", required})
			}
			in = append(in, kv{"properties", flow{props}})
			c.body = append(c.body, kv{"contract", omap{{"input", in}}})
		}
	case "echo":
		c.body[0].v = "exec"
		r := valueRead(siteWith, id+".arg")
		r.form = rapid.SampledFrom([]string{"text", "text", "plain"}).Draw(t, id+".arg.text")
		c.reads = append(c.reads, r)
		arg := "v=${{ " + r.expr() + " }}"
		if r.form == "plain" {
			arg = r.template()
		}
		with := omap{{"command", []any{"echo", arg}}}
		if rapid.Bool().Draw(t, id+".env") {
			e := valueRead(siteWith, id+".env")
			e.form = rapid.SampledFrom([]string{"text", "plain"}).Draw(t, id+".env.text")
			c.reads = append(c.reads, e)
			v := "${{ " + e.expr() + " }}"
			if e.form == "text" {
				v = "x-" + v
			}
			with = append(with, kv{"env", omap{{"V", v}}})
		}
		with = append(with, kv{"output", "text"})
		c.body = append(c.body, kv{"with", with})
	case "foreach":
		r := read{site: siteForeach, form: "plain", path: pick(id + ".foreach")}
		c.reads = append(c.reads, r)
		c.body = append(c.body, kv{"foreach", r.template()}, kv{"input", "${{ item }}"},
			kv{"with", omap{{"program", program}}})
	}
	return c
}

// consumerSchema is what a consumer's contract.input asks of a key holding r: what the
// producer's contract gives there, or (one time in three) something it may not give.
func consumerSchema(t *rapid.T, r read, label string) map[string]any {
	switch r.form {
	case "text":
		return map[string]any{"type": "string"}
	case "size":
		return map[string]any{"type": "integer"}
	case "has", "eq":
		return map[string]any{"type": "boolean"}
	}
	end := r.path.end
	if end == nil {
		return map[string]any{"type": "string"}
	}
	if rapid.IntRange(0, 2).Draw(t, label+".mutate") > 0 {
		return end.render(true)
	}
	switch end.kind {
	case "integer", "number":
		return map[string]any{"type": "string"}
	case "string":
		return map[string]any{"type": "string", "minLength": 4}
	case "boolean":
		return map[string]any{"type": "integer"}
	case "array":
		m := end.render(true)
		m["minItems"] = end.minItems + 3
		return m
	case "object":
		return map[string]any{"type": "object", "required": []any{"zz"}}
	}
	return map[string]any{"type": "null"}
}

// yamlOf is the DAG file of sp with each producer putting out values[producer id].
func yamlOf(sp spec, values map[string]any) ([]byte, error) {
	nodes := omap{}
	for _, p := range sp.producers {
		out := p.data.render(false)
		contract := omap{{"type", "object"}, {"required", []any{"data"}},
			{"properties", omap{{"data", flow{out}}}}}
		if len(p.defs.local) > 0 {
			ds := map[string]any{}
			for _, d := range p.defs.local {
				ds[d.name] = d.s.render(false)
			}
			contract = append(contract, kv{"$defs", flow{ds}})
		}
		nodes = append(nodes, kv{p.id, omap{{"type", "const"}, {"with", omap{{"value", flow{values[p.id]}}}},
			{"contract", omap{{"output", contract}}}}})
	}
	for _, c := range sp.consumers {
		body := slices.Clone(c.body)
		if c.when != nil {
			body = slices.Insert(body, 1, kv{"when", c.when.template()})
		}
		nodes = append(nodes, kv{c.id, body})
	}
	doc := omap{{"version", 1}, {"name", "promise"}, {"nodes", nodes}}
	if len(sp.outputs) > 0 {
		outs := omap{}
		for i, o := range sp.outputs {
			name := fmt.Sprintf("o%d", i+1)
			if sp.outNames != nil {
				name = sp.outNames[i]
			}
			outs = append(outs, kv{name, o.template()})
		}
		doc = append(doc, kv{"outputs", outs})
	}
	if sp.trigger != nil {
		doc = sp.trigger.yaml(doc)
	}
	return yaml.Marshal(doc)
}

// compact is v as one line of JSON, for messages.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}
