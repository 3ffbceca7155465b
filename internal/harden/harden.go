// Package harden makes seam's own process harder to read from beside it: seam holds
// credentials (a store's password, tokens, API keys) that the nodes it runs must not see.
package harden
