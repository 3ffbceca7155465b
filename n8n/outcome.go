package n8n

import (
	"encoding/json"

	"github.com/seam-dag/seam/internal/i18n"
)

// Outcome is what an execution's data says about how it ended.
type Outcome struct {
	// LastNode is the name of the node that ran last.
	LastNode string
	// Error is n8n's error message when the execution failed ("" otherwise).
	Error string
	// ErrorNode names the node that failed, when n8n says.
	ErrorNode string
	// Items are the `json` of the items the last node emitted, all its outputs in order.
	Items []any
}

// executionData is the part of an execution's data (fetched with includeData) that Outcome and
// Detail read.
type executionData struct {
	ResultData struct {
		Error *struct {
			Message     string `json:"message"`
			Description string `json:"description"`
			Node        *struct {
				Name string `json:"name"`
			} `json:"node"`
		} `json:"error"`
		LastNodeExecuted string               `json:"lastNodeExecuted"`
		RunData          map[string][]nodeRun `json:"runData"`
	} `json:"resultData"`
}

// nodeRun is one run of a node in an execution's data.
type nodeRun struct {
	StartTime       int64  `json:"startTime"` // Unix milliseconds
	ExecutionIndex  *int64 `json:"executionIndex"`
	ExecutionTime   int64  `json:"executionTime"`
	ExecutionStatus string `json:"executionStatus"`
	Error           *struct {
		Message string `json:"message"`
	} `json:"error"`
	// Items by connection type (main, ai_tool…), then output; an output n8n did not take is
	// null. They stay undecoded: Detail only counts them, Outcome decodes the last node's.
	Data map[string][][]json.RawMessage `json:"data"`
}

// hasData tells whether the execution was fetched with its data.
func (e *Execution) hasData() bool { return len(e.Data) > 0 && string(e.Data) != "null" }

// readData decodes the execution's data; it must have some (hasData).
func (e *Execution) readData(lang i18n.Lang) (*executionData, error) {
	var d executionData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, i18n.Errorf(lang, "execution %s: read data: %w", e.ID, err)
	}
	return &d, nil
}

// Outcome reads the execution's data, which must have been fetched (includeData). Its
// errors are said in lang.
func (e *Execution) Outcome(lang i18n.Lang) (Outcome, error) {
	var o Outcome
	if !e.hasData() {
		return o, i18n.Errorf(lang, "execution %s has no data (fetch it with includeData)", e.ID)
	}
	d, err := e.readData(lang)
	if err != nil {
		return o, err
	}
	rd := d.ResultData
	o.LastNode = rd.LastNodeExecuted
	if rd.Error != nil {
		o.Error = rd.Error.Message
		if rd.Error.Node != nil {
			o.ErrorNode = rd.Error.Node.Name
		}
	}
	runs := rd.RunData[o.LastNode]
	if len(runs) == 0 {
		return o, nil
	}
	last := runs[len(runs)-1]
	if o.Error == "" && last.Error != nil {
		o.Error = last.Error.Message
	}
	o.Items = []any{}
	for i, out := range last.Data["main"] {
		for j, raw := range out {
			var it struct {
				JSON any `json:"json"`
			}
			if err := json.Unmarshal(raw, &it); err != nil {
				return Outcome{}, i18n.Errorf(lang, "execution %s: read data: node %q, output %d, item %d: %w", e.ID, o.LastNode, i, j, err)
			}
			o.Items = append(o.Items, it.JSON)
		}
	}
	return o, nil
}

// Failed reports whether an execution status means the execution failed.
func Failed(status string) bool {
	return status == "error" || status == "crashed" || status == "canceled"
}

// Done reports whether an execution status is final.
func Done(status string) bool {
	switch status {
	case "new", "running", "waiting", "":
		return false
	}
	return true
}
