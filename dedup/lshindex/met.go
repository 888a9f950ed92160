package lshindex

import "sync"

// metTable is an open-addressing table (linear probing) of the slots a
// query met, with a 32-bit value each: a posting costs one probe, where
// sorting every posting read cost O(log n) compares a posting and grew
// with the postings a decision reads.
type metTable struct {
	keys  []uint32 // slot+1; 0: empty
	vals  []uint32
	slots []uint32 // the distinct slots, in the order first met
	hits  []uint32 // a buffer for the query's band hits (reused with the table)
}

// metPool keeps emptied tables for reuse (Index.metPool): a table grown
// by one query is not allocated and zeroed again by the next.
type metPool struct{ p sync.Pool }

// get returns an empty table; put gives it back.
func (mp *metPool) get() *metTable {
	if t, ok := mp.p.Get().(*metTable); ok {
		return t
	}
	return &metTable{keys: make([]uint32, 1024), vals: make([]uint32, 1024)}
}

func (mp *metPool) put(t *metTable) {
	if len(t.slots) > len(t.keys)/8 {
		clear(t.keys)
	} else {
		mask := uint32(len(t.keys) - 1)
		for _, s := range t.slots {
			k := s + 1
			i := (k * 0x9E3779B1) >> 7 & mask
			for t.keys[i] != k {
				i = (i + 1) & mask
			}
			t.keys[i] = 0
		}
	}
	t.slots, t.hits = t.slots[:0], t.hits[:0]
	mp.p.Put(t)
}

// add ORs or into slot's value and adds inc to it.
func (t *metTable) add(slot, or, inc uint32) {
	if 2*(len(t.slots)+1) > len(t.keys) {
		t.grow()
	}
	mask := uint32(len(t.keys) - 1)
	k := slot + 1
	for i := (k * 0x9E3779B1) >> 7 & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case 0:
			t.keys[i], t.vals[i] = k, or+inc
			t.slots = append(t.slots, slot)
			return
		case k:
			t.vals[i] = t.vals[i] | or + inc
			return
		}
	}
}

// get returns slot's value (0 when it was not met).
func (t *metTable) get(slot uint32) uint32 {
	mask := uint32(len(t.keys) - 1)
	k := slot + 1
	for i := (k * 0x9E3779B1) >> 7 & mask; t.keys[i] != 0; i = (i + 1) & mask {
		if t.keys[i] == k {
			return t.vals[i]
		}
	}
	return 0
}

func (t *metTable) grow() {
	keys, vals := t.keys, t.vals
	t.keys, t.vals = make([]uint32, 2*len(keys)), make([]uint32, 2*len(keys))
	mask := uint32(len(t.keys) - 1)
	for j, k := range keys {
		if k == 0 {
			continue
		}
		i := (k * 0x9E3779B1) >> 7 & mask
		for t.keys[i] != 0 {
			i = (i + 1) & mask
		}
		t.keys[i], t.vals[i] = k, vals[j]
	}
}
