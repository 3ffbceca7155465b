package nodes

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
)

// Masked replaces a secret wherever one would have been shown.
const Masked = "***"

// MinSecret is the shortest value masked: masking "1" or "ok" everywhere would break every
// output (its numbers, its words) and hide nothing worth hiding. Telemetry masks from the same
// length.
const MinSecret = 4

// secretForms returns the texts to mask for secrets: each value as is, and as it reads once
// escaped for a URL or a JSON string, since services echo what they received in those forms.
// Longest first, so that a secret containing another is masked whole.
func secretForms(secrets []string) []string {
	var forms []string
	for _, s := range secrets {
		if len(s) < MinSecret {
			continue
		}
		forms = append(forms, s, url.QueryEscape(s), url.PathEscape(s))
		if b, err := json.Marshal(s); err == nil {
			forms = append(forms, string(b[1:len(b)-1]))
		}
	}
	slices.SortFunc(forms, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return slices.Compact(forms)
}

// MaskString replaces every occurrence of the secrets in s with Masked.
func MaskString(s string, secrets []string) string {
	return maskForms(s, secretForms(secrets))
}

func maskForms(s string, forms []string) string {
	for _, f := range forms {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, Masked)
		}
	}
	return s
}

// MaskValue returns a decoded JSON value with the secrets masked in every string, object key
// and number (a number that holds a secret becomes the string Masked: a leak is worse than a
// changed type). v is not modified.
func MaskValue(v any, secrets []string) any {
	forms := secretForms(secrets)
	if len(forms) == 0 {
		return v
	}
	return maskValue(v, forms)
}

func maskValue(v any, forms []string) any {
	switch v := v.(type) {
	case string:
		return maskForms(v, forms)
	case json.Number:
		if m := maskForms(v.String(), forms); m != v.String() {
			return m
		}
		return v
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[maskForms(k, forms)] = maskValue(x, forms)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = maskValue(x, forms)
		}
		return a
	}
	return v
}

// MaskError returns err with the secrets masked in its message. What it wraps stays
// reachable through errors.Is and errors.As only for the causes callers test for (context
// ends, the output limit), which carry no secret: the rest of the chain, a *url.Error with
// its URL for one, is dropped.
func MaskError(err error, secrets []string) error {
	forms := secretForms(secrets)
	if err == nil || len(forms) == 0 {
		return err
	}
	msg := err.Error()
	masked := maskForms(msg, forms)
	if masked == msg {
		return err
	}
	return &maskedError{msg: masked, cause: safeCause(err)}
}

type maskedError struct {
	msg   string
	cause error // nil, or a cause that holds no secret
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.cause }

// safeCause finds in err's chain the causes that carry no text of their own.
func safeCause(err error) error {
	var limit *OutputLimitError
	switch {
	case errors.As(err, &limit):
		return limit
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		return context.Canceled
	}
	return nil
}
