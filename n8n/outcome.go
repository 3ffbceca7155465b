package n8n

import (
	"encoding/json"
	"fmt"
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

// executionData is the part of an execution's data that Outcome reads.
type executionData struct {
	ResultData struct {
		Error *struct {
			Message string `json:"message"`
			Node    *struct {
				Name string `json:"name"`
			} `json:"node"`
		} `json:"error"`
		LastNodeExecuted string `json:"lastNodeExecuted"`
		RunData          map[string][]struct {
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
			Data struct {
				Main [][]struct {
					JSON any `json:"json"`
				} `json:"main"`
			} `json:"data"`
		} `json:"runData"`
	} `json:"resultData"`
}

// Outcome reads the execution's data, which must have been fetched (includeData).
func (e *Execution) Outcome() (Outcome, error) {
	var o Outcome
	if len(e.Data) == 0 || string(e.Data) == "null" {
		return o, fmt.Errorf("execution %s has no data (fetch it with includeData)", e.ID)
	}
	var d executionData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return o, fmt.Errorf("execution %s: read data: %w", e.ID, err)
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
	for _, out := range last.Data.Main {
		for _, it := range out {
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
