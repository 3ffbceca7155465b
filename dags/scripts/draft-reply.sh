#!/bin/sh
# Drafts a reply to ann. After a reject, $SEAM_REVIEW holds the reviewer's answer as JSON:
# the reply is written again, warmer, and carries the answer it heeds for the next reviewer.
if [ -z "${SEAM_REVIEW:-}" ]; then
	printf '{"status":"pass","summary":"drafted a reply to ann","data":{"customer":"ann","reply":"We are on it.","review":null}}\n'
else
	printf '{"status":"pass","summary":"drafted the reply to ann again","data":{"customer":"ann","reply":"Thanks for your patience, ann: we are on it and will write again by Friday.","review":%s}}\n' "$SEAM_REVIEW"
fi
