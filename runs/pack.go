package runs

// Packs: the attempts of pure nodes (Attempt.Pure) in one row per run of them in a batch.
//
// An SQLite row costs about 25 µs of CPU to insert through database/sql (an attempt and its
// output are two rows, the output's under a random hash), against 6–9 µs for the engine's
// whole work on a `const` node: stored row by row, pure nodes cost the store 4–6× their run
// (PostgreSQL 17–38×).
// A resume computes a pure node again, so nothing needs its attempt as a row of its own
// before it is handed on; packed, a batch of them is one row, encoded here, with their
// outputs inline. GetRun and Reusable unpack them, in the order they were recorded.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/seam-dag/seam/dag"
)

// packVersion is the first byte of a pack; a pack of another version is refused.
const packVersion = 1

// packOutputMax bounds an output stored inline in a pack: a larger one goes to the outputs
// table with its attempt as a row, so that a pack of maxPending attempts stays a few MB.
const packOutputMax = 16 << 10

// packable reports whether a goes into a pack: a pure node's attempt whose output, if any,
// is small and in hand (not a reference to an output stored before).
func packable(a *Attempt) bool {
	return a.Pure && len(a.Output) <= packOutputMax && (a.Output != nil || a.OutputHash == "")
}

const (
	packFinal = 1 << iota
	packRepaired
	packReused
	packOutput
	packStarted
	packEnded
	packHexKey // the key is 64 lowercase hex digits, stored as the 32 bytes they spell
)

// encodePack appends the pack of as, prepared, to b.
func encodePack(b []byte, as []Attempt, rows []attemptRow) []byte {
	size := 1 + binary.MaxVarintLen64
	for i := range as {
		a := &as[i]
		v, _ := rows[i].violations.(string)
		// The fixed fields take at most 80 bytes but for very long keys and reasons.
		size += 80 + len(a.Node) + len(a.Type) + len(a.Key) + len(a.Reason) + len(a.Output) + len(v) + len(a.Error) + len(a.Log)
	}
	b = slices.Grow(b, size)
	b = append(b, packVersion)
	b = binary.AppendUvarint(b, uint64(len(as)))
	for i := range as {
		a := &as[i]
		var flags byte
		for _, f := range []struct {
			set bool
			bit byte
		}{{a.Final, packFinal}, {a.Repaired, packRepaired}, {a.Reused, packReused},
			{a.Output != nil, packOutput}, {!a.Started.IsZero(), packStarted}, {!a.Ended.IsZero(), packEnded},
			{hexKey(a.Key), packHexKey}} {
			if f.set {
				flags |= f.bit
			}
		}
		b = append(b, flags)
		b = binary.AppendVarint(b, int64(a.Session))
		b = appendString(b, a.Node)
		b = binary.AppendVarint(b, int64(a.Item))
		b = appendString(b, a.Type)
		b = binary.AppendVarint(b, int64(a.Attempt))
		b = appendString(b, string(a.Status))
		if flags&packHexKey != 0 {
			b, _ = hex.AppendDecode(b, []byte(a.Key))
		} else {
			b = appendString(b, a.Key)
		}
		b = appendString(b, a.Reason)
		// A packed attempt has its output in hand or none (packable): its hash is
		// computed again when read.
		if a.Output != nil {
			b = appendString(b, string(a.Output))
		}
		v, _ := rows[i].violations.(string)
		b = appendString(b, v)
		b = appendString(b, a.Error)
		b = appendString(b, a.Log)
		if !a.Started.IsZero() {
			b = binary.AppendVarint(b, a.Started.UnixNano())
		}
		if !a.Ended.IsZero() {
			b = binary.AppendVarint(b, a.Ended.UnixNano())
		}
	}
	return b
}

// hexKey reports whether key is a SHA-256 in lowercase hex, as the engine's keys are.
func hexKey(key string) bool {
	if len(key) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// errPack says a pack does not decode: the store was damaged, or written by a seam that
// packs otherwise.
var errPack = errors.New("damaged attempt pack")

// decodePack appends the attempts of run id packed in b to as.
func decodePack(as []Attempt, b []byte, id string) ([]Attempt, error) {
	d := packReader{b: b}
	if v := d.byte(); v != packVersion {
		return as, fmt.Errorf("%w: version %d, this seam reads %d", errPack, v, packVersion)
	}
	n := d.uvarint()
	if d.err != nil {
		return as, d.err
	}
	// Every attempt takes at least one byte: a count beyond that is damage, not a reason to
	// allocate.
	if n > uint64(len(d.b)) {
		return as, fmt.Errorf("%w: %d attempts in %d bytes", errPack, n, len(b))
	}
	for range n {
		a := Attempt{RunID: id, Pure: true}
		flags := d.byte()
		a.Final, a.Repaired, a.Reused = flags&packFinal != 0, flags&packRepaired != 0, flags&packReused != 0
		a.Session = int(d.varint())
		a.Node = d.string()
		a.Item = int(d.varint())
		a.Type = d.string()
		a.Attempt = int(d.varint())
		a.Status = dag.NodeStatus(d.string())
		if flags&packHexKey != 0 {
			a.Key = hex.EncodeToString(d.bytes(sha256.Size))
		} else {
			a.Key = d.string()
		}
		a.Reason = d.string()
		if flags&packOutput != 0 {
			a.Output = []byte(d.string())
			a.OutputHash = HashOutput(a.Output)
		}
		if v := d.string(); v != "" && d.err == nil {
			if err := json.Unmarshal([]byte(v), &a.Violations); err != nil {
				return as, fmt.Errorf("%w: violations of %s #%d: %v", errPack, a.Node, a.Attempt, err)
			}
		}
		a.Error = d.string()
		a.Log = d.string()
		if flags&packStarted != 0 {
			a.Started = time.Unix(0, d.varint()).UTC()
		}
		if flags&packEnded != 0 {
			a.Ended = time.Unix(0, d.varint()).UTC()
		}
		if d.err != nil {
			return as, d.err
		}
		as = append(as, a)
	}
	if len(d.b) > 0 {
		return as, fmt.Errorf("%w: %d bytes after its last attempt", errPack, len(d.b))
	}
	return as, nil
}

// unpacker merges a run's packs, read first, into its attempt rows as they are read, both in
// the order of their seq.
type unpacker struct {
	id    string
	packs []packRow
	as    []Attempt
}

// packRow is a pack as read, with its place in the run's order.
type packRow struct {
	seq  int64
	data []byte
}

// row adds the attempt read at seq, after the packs before it.
func (u *unpacker) row(seq int64, a Attempt) error {
	if err := u.upTo(seq); err != nil {
		return err
	}
	u.as = append(u.as, a)
	return nil
}

// upTo unpacks the packs before seq.
func (u *unpacker) upTo(seq int64) error {
	for len(u.packs) > 0 && u.packs[0].seq < seq {
		var err error
		if u.as, err = decodePack(u.as, u.packs[0].data, u.id); err != nil {
			return fmt.Errorf("attempts #%d: %w", u.packs[0].seq, err)
		}
		u.packs = u.packs[1:]
	}
	return nil
}

// rowScanner is the part of database/sql's and pgx's rows that reading attempts uses.
type rowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// readPacks reads the run's packs, rows of (seq, data) in the order of seq.
func (u *unpacker) readPacks(rows rowScanner) error {
	for rows.Next() {
		var p packRow
		if err := rows.Scan(&p.seq, &p.data); err != nil {
			return err
		}
		u.packs = append(u.packs, p)
	}
	return rows.Err()
}

// readRows reads the run's attempt rows, attemptColumns then seq, in the order of seq, and
// returns all its attempts, the packs' among them.
func (u *unpacker) readRows(rows rowScanner) ([]Attempt, error) {
	for rows.Next() {
		var seq int64
		a, err := scanAttempt(rows, u.id, &seq)
		if err != nil {
			return nil, err
		}
		if err := u.row(seq, a); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := u.upTo(math.MaxInt64); err != nil {
		return nil, err
	}
	return dropFinishedStarts(u.as), nil
}

// packReader reads what encodePack wrote; past the first error every read returns zero.
type packReader struct {
	b   []byte
	err error
}

func (d *packReader) fail() {
	if d.err == nil {
		d.err = fmt.Errorf("%w: cut short", errPack)
	}
	d.b = nil
}

func (d *packReader) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *packReader) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *packReader) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *packReader) string() string {
	return string(d.bytes(d.uvarint()))
}

// bytes returns the next n bytes, which stay b's.
func (d *packReader) bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}
