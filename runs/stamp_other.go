//go:build !unix

package runs

// fileStamp has no change time to rely on here: every Check reads the whole store.
func fileStamp(string) (string, bool) { return "", false }
