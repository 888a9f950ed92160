package evalmethods

import (
	"slices"
	"testing"
)

func TestSinglePassHamming(t *testing.T) {
	tests := []struct {
		name string
		fps  []uint64
		ok   []bool
		k    int
		want []int
	}{
		{"within k joins the centre", []uint64{0, 0b111, 0b1111}, []bool{true, true, true}, 3, []int{0, 0, 2}},
		{"nearest centre wins", []uint64{0, 0xff00, 0xfe00}, []bool{true, true, true}, 3, []int{0, 1, 1}},
		{"compares with centres only", []uint64{0, 0b111, 0b111111}, []bool{true, true, true}, 3, []int{0, 0, 2}},
		{"no features stay alone", []uint64{0, 0}, []bool{true, false}, 3, []int{0, 1}},
		{"k 0 is exact", []uint64{5, 5, 4}, []bool{true, true, true}, 0, []int{0, 0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := singlePassHamming(tt.fps, tt.ok, tt.k); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTrainGroupSplitsBothWays(t *testing.T) {
	train := 0
	for i := range 200 {
		if TrainGroup("d-r" + string(rune('a'+i%26)) + string(rune('a'+i/26))) {
			train++
		}
	}
	if train < 60 || train > 140 {
		t.Errorf("%d of 200 groups in the training half", train)
	}
}
