package evaldedup

import (
	"sort"

	"github.com/newsdedup/newscrawl/internal/dataset"
)

// OpPct names one edit setting, e.g. add 5 %.
type OpPct struct {
	Op  string
	Pct int
}

// RobustReport is the Li Gang et al. protocol's figures for one method.
type RobustReport struct {
	Method string
	// Recall per edit setting: share of variants clustered with their original.
	Recall   map[OpPct]float64
	RecallOp map[string]float64
	// FalseMergePairRate: share of pairs of originals/distinct texts of
	// different groups that share a cluster.
	FalseMergePairRate float64
	// MergedVariants: variants placed in a cluster holding another group's original or distinct text.
	MergedVariants int
	Pairwise       PRF
	MsPerDoc       float64
}

// ScoreRobust scores cluster labels (one per doc, in order) on the set.
func ScoreRobust(docs []dataset.RobustDoc, clusters []int) RobustReport {
	rep := RobustReport{Recall: map[OpPct]float64{}, RecallOp: map[string]float64{}}
	orig := map[string]int{} // group -> cluster of its orig
	for i, d := range docs {
		if d.Op == "orig" {
			orig[d.Group] = clusters[i]
		}
	}
	hit, tot := map[OpPct]int{}, map[OpPct]int{}
	hitOp, totOp := map[string]int{}, map[string]int{}
	// clusters of base texts (orig/distinct) per group, for false merges
	baseGroup := map[int]map[string]bool{}
	for i, d := range docs {
		if d.Op == "orig" || d.Op == "distinct" {
			if baseGroup[clusters[i]] == nil {
				baseGroup[clusters[i]] = map[string]bool{}
			}
			baseGroup[clusters[i]][d.Group] = true
		}
	}
	for i, d := range docs {
		if d.Op == "orig" || d.Op == "distinct" {
			continue
		}
		k := OpPct{d.Op, d.Pct}
		tot[k]++
		totOp[d.Op]++
		if c, ok := orig[d.Group]; ok && c == clusters[i] {
			hit[k]++
			hitOp[d.Op]++
		}
		for g := range baseGroup[clusters[i]] {
			if g != d.Group {
				rep.MergedVariants++
				break
			}
		}
	}
	for k, n := range tot {
		rep.Recall[k] = float64(hit[k]) / float64(n)
	}
	for k, n := range totOp {
		rep.RecallOp[k] = float64(hitOp[k]) / float64(n)
	}
	var basePred []int
	var baseTruth []string
	var pred []int
	var truth []string
	for i, d := range docs {
		pred = append(pred, clusters[i])
		truth = append(truth, d.Group)
		if d.Op == "orig" || d.Op == "distinct" {
			basePred = append(basePred, clusters[i])
			baseTruth = append(baseTruth, d.Group)
		}
	}
	// Base texts are all of different groups: every predicted pair is a false merge.
	b := Pairwise(basePred, baseTruth)
	if n := int64(len(basePred)); n > 1 {
		rep.FalseMergePairRate = float64(b.PredPairs-b.TP) / float64(pairs(n))
	}
	rep.Pairwise = Pairwise(pred, truth)
	return rep
}

// Settings returns the report's edit settings in a stable order.
func (r RobustReport) Settings() []OpPct {
	var ks []OpPct
	for k := range r.Recall {
		ks = append(ks, k)
	}
	order := map[string]int{"add": 0, "delete": 1, "reorder": 2}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].Op != ks[j].Op {
			return order[ks[i].Op] < order[ks[j].Op]
		}
		return ks[i].Pct < ks[j].Pct
	})
	return ks
}
