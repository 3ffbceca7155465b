#!/bin/sh
# Reads {"title": ...} on stdin and labels it.
if grep -q crash; then label=bug; else label=question; fi
printf '{"status":"pass","summary":"labelled %s","data":{"label":"%s"}}\n' "$label" "$label"
