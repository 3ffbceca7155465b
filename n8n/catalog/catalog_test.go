package catalog

import (
	"encoding/binary"
	"strings"
	"testing"
)

func load(t testing.TB) *Catalog {
	t.Helper()
	var l Loader
	c, err := l.Get()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEmbeddedVersions(t *testing.T) {
	c := load(t)
	if c.N8N() != "2.8.4" {
		t.Errorf("n8n version %q, want the pinned 2.8.4", c.N8N())
	}
	for _, p := range []string{"n8n-nodes-base", "@n8n/n8n-nodes-langchain"} {
		if c.Packages()[p] == "" {
			t.Errorf("no version recorded for %s", p)
		}
	}
	if len(c.Types()) < 500 {
		t.Errorf("only %d types", len(c.Types()))
	}
}

func TestLookup(t *testing.T) {
	c := load(t)
	tests := []struct {
		typ     string
		version float64
		display string
		trigger bool
		outputs int // static outputs; -1: computed
	}{
		{"n8n-nodes-base.if", 2.2, "If", false, 2},
		{"n8n-nodes-base.splitInBatches", 3, "Loop Over Items (Split in Batches)", false, 2},
		{"n8n-nodes-base.webhook", 2, "Webhook", true, -1},
		{"n8n-nodes-base.scheduleTrigger", 1.2, "Schedule Trigger", true, 1},
		{"@n8n/n8n-nodes-langchain.lmChatOpenAi", 1.2, "OpenAI Chat Model", false, 1},
		{"n8n-nodes-base.httpRequestTool", 4.2, "HTTP Request Tool", false, 1},
	}
	for _, tt := range tests {
		n, ok := c.Lookup(tt.typ, tt.version)
		if !ok {
			t.Errorf("%s: unknown", tt.typ)
			continue
		}
		if n.DisplayName != tt.display || n.Trigger != tt.trigger {
			t.Errorf("%s: %q trigger=%v, want %q trigger=%v", tt.typ, n.DisplayName, n.Trigger, tt.display, tt.trigger)
		}
		if tt.outputs >= 0 && len(n.Outputs) != tt.outputs {
			t.Errorf("%s: %d outputs, want %d", tt.typ, len(n.Outputs), tt.outputs)
		}
	}
	// SplitInBatches v3 is done, loop; v2 loop, done.
	v3, _ := c.Lookup("n8n-nodes-base.splitInBatches", 3)
	v2, _ := c.Lookup("n8n-nodes-base.splitInBatches", 2)
	if strings.Join(v3.OutputNames, ",") != "done,loop" || strings.Join(v2.OutputNames, ",") != "loop,done" {
		t.Errorf("splitInBatches outputs v3 %v v2 %v", v3.OutputNames, v2.OutputNames)
	}
	tool, _ := c.Lookup("n8n-nodes-base.httpRequestTool", 4.2)
	if tool.ToolOf != "n8n-nodes-base.httpRequest" || len(tool.Inputs) != 0 || tool.Outputs[0].Type != "ai_tool" || tool.Prop("toolDescription") == nil {
		t.Errorf("tool variant: %+v", tool)
	}
	if !c.Versioned("n8n-nodes-base.httpRequest") || c.Latest("n8n-nodes-base.httpRequest") < 4.2 {
		t.Errorf("httpRequest versions %v", c.Versions("n8n-nodes-base.httpRequest"))
	}
}

func TestRules(t *testing.T) {
	c := load(t)
	tests := []struct {
		typ     string
		version float64
		params  map[string]any
		in      bool
		want    int
		known   bool
	}{
		{"n8n-nodes-base.switch", 3.2, map[string]any{"rules": map[string]any{"values": []any{map[string]any{}, map[string]any{}}}}, false, 2, true},
		{"n8n-nodes-base.switch", 3.2, map[string]any{"rules": map[string]any{"values": []any{map[string]any{}}}, "options": map[string]any{"fallbackOutput": "extra"}}, false, 2, true},
		{"n8n-nodes-base.switch", 3.2, map[string]any{"mode": "expression", "numberOutputs": 5.0}, false, 5, true},
		{"n8n-nodes-base.switch", 3.2, map[string]any{"mode": "={{ 1 }}"}, false, 0, false},
		{"n8n-nodes-base.switch", 2, map[string]any{"rules": map[string]any{"rules": []any{map[string]any{}, map[string]any{}, map[string]any{}}}}, false, 3, true},
		{"n8n-nodes-base.switch", 1, nil, false, 4, true},
		{"n8n-nodes-base.merge", 3, nil, true, 2, true},
		{"n8n-nodes-base.merge", 3.2, map[string]any{"numberInputs": 4.0}, true, 4, true},
		{"n8n-nodes-base.merge", 2.1, nil, true, 2, true},
		{"n8n-nodes-base.merge", 3.2, map[string]any{"numberInputs": 1e9}, true, 0, false},
		{"n8n-nodes-base.webhook", 2, map[string]any{"multipleMethods": true, "httpMethod": []any{"GET", "POST"}}, false, 2, true},
		{"n8n-nodes-base.webhook", 2, nil, false, 1, true},
		{"n8n-nodes-base.respondToWebhook", 1.5, map[string]any{"enableResponseOutput": true}, false, 2, true},
		{"n8n-nodes-base.respondToWebhook", 1.1, nil, false, 1, true},
		{"@n8n/n8n-nodes-langchain.agent", 2.2, map[string]any{"hasOutputParser": false}, true, 4, true},
		{"@n8n/n8n-nodes-langchain.agent", 3, map[string]any{"needsFallback": true}, true, 6, true},
		{"@n8n/n8n-nodes-langchain.agent", 1.7, nil, true, 0, false},
		{"@n8n/n8n-nodes-langchain.textClassifier", 1.1, map[string]any{"categories": map[string]any{"categories": []any{map[string]any{}, map[string]any{}}}, "options": map[string]any{"fallback": "other"}}, false, 3, true},
	}
	for _, tt := range tests {
		n, _ := c.Lookup(tt.typ, tt.version)
		var ps []Port
		var known bool
		if tt.in {
			ps, known = n.ResolveInputs(tt.version, tt.params)
		} else {
			ps, known = n.ResolveOutputs(tt.version, tt.params)
		}
		if known != tt.known || (known && len(ps) != tt.want) {
			t.Errorf("%s %v %v: %d ports known=%v, want %d known=%v", tt.typ, tt.version, tt.params, len(ps), known, tt.want, tt.known)
		}
	}
}

func TestShown(t *testing.T) {
	tests := []struct {
		name       string
		show, hide Cond
		here       map[string]any
		defs       []*Prop
		version    float64
		shown      bool
		sure       bool
	}{
		{"no conditions", nil, nil, nil, nil, 1, true, true},
		{"value matches", Cond{"mode": {"a"}}, nil, map[string]any{"mode": "a"}, nil, 1, true, true},
		{"value differs", Cond{"mode": {"a"}}, nil, map[string]any{"mode": "b"}, nil, 1, false, true},
		{"default used", Cond{"mode": {"a"}}, nil, nil, []*Prop{{Name: "mode", Default: "a"}}, 1, true, true},
		{"expression decides", Cond{"mode": {"a"}}, nil, map[string]any{"mode": "={{ 1 }}"}, nil, 1, true, false},
		{"version gte", Cond{"@version": {map[string]any{"_cnd": map[string]any{"gte": 2.0}}}}, nil, nil, nil, 2.1, true, true},
		{"version lt fails", Cond{"@version": {map[string]any{"_cnd": map[string]any{"lt": 2.0}}}}, nil, nil, nil, 2.1, false, true},
		{"between", Cond{"@version": {map[string]any{"_cnd": map[string]any{"between": map[string]any{"from": 1.6, "to": 1.7}}}}}, nil, nil, nil, 1.6, true, true},
		{"hidden", nil, Cond{"mode": {"a"}}, map[string]any{"mode": "a"}, nil, 1, false, true},
		{"multi value", Cond{"ops": {"x"}}, nil, map[string]any{"ops": []any{"y", "x"}}, nil, 1, true, true},
		{"root path", Cond{"/resource": {"r"}}, nil, nil, nil, 1, true, true},
	}
	for _, tt := range tests {
		defs := NewPropSet(tt.defs)
		s := Scope{Version: tt.version, Root: map[string]any{"resource": "r"}, Here: tt.here, HereDefs: &defs}
		shown, sure := Shown(tt.show, tt.hide, s)
		if shown != tt.shown || sure != tt.sure {
			t.Errorf("%s: shown=%v sure=%v, want %v %v", tt.name, shown, sure, tt.shown, tt.sure)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	bad := binary.LittleEndian.AppendUint32(nil, 100)
	tests := []struct {
		name string
		pack []byte
		want string
	}{
		{"short", []byte{1}, "catalog: pack too short"},
		{"header beyond", append(bad, 1, 2), "catalog: header length 100 beyond the pack's 6 bytes"},
		{"not gzip", append(binary.LittleEndian.AppendUint32(nil, 2), 1, 2), "catalog: header: "},
	}
	for _, tt := range tests {
		_, err := Open(tt.pack)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func BenchmarkCatalogLoad(b *testing.B) {
	for b.Loop() {
		var l Loader
		c, err := l.Get()
		if err != nil {
			b.Fatal(err)
		}
		c.Lookup("n8n-nodes-base.if", 2.2)
	}
}

// TestEveryTypeDecodes: every blob of the embedded pack decodes, with versions.
func TestEveryTypeDecodes(t *testing.T) {
	c := load(t)
	for _, typ := range c.Types() {
		n, ok := c.Lookup(typ, c.Latest(typ))
		if !ok || n == nil || len(c.Versions(typ)) == 0 || n.DisplayName == "" {
			t.Errorf("%s does not decode", typ)
		}
	}
}
