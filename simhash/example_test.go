package simhash_test

import (
	"fmt"
	"strings"

	"github.com/newsdedup/newscrawl/simhash"
)

// Two reports of one story differ in one word of twenty: their Simhashes
// are closer than those of two unrelated texts (random 64-bit values are
// 32 bits apart on average). On texts this short one word still moves
// several bits; news articles have hundreds of words.
func ExampleSum() {
	words := func(ws ...string) []simhash.Feature {
		fs := make([]simhash.Feature, len(ws))
		for i, w := range ws {
			fs[i] = simhash.Feature{Term: w, Weight: 1}
		}
		return fs
	}
	story := strings.Fields("国务院 常务 会议 部署 稳定 就业 措施 要求 各地 加大 政策 支持 力度 帮助 企业 吸纳 高校 毕业生 灵活 就业")
	edited := append([]string{}, story...)
	edited[4] = "促进" // 稳定 → 促进
	other := strings.Fields("足球 联赛 今晚 开幕 球迷 入场 主队 客场 比分 进球 门将 扑救 裁判 哨声 点球 角球 换人 加时 冠军 奖杯")
	a, b, c := simhash.Sum(words(story...), nil), simhash.Sum(words(edited...), nil), simhash.Sum(words(other...), nil)
	fmt.Println("one word changed:", simhash.Distance(a, b), "bits; another story:", simhash.Distance(a, c), "bits")
	// Output: one word changed: 7 bits; another story: 26 bits
}

// An Index answers "which fingerprints are within k bits of this one"
// without a linear scan (Manku et al. 2007).
func ExampleIndex() {
	x, err := simhash.NewIndex(3)
	if err != nil {
		panic(err)
	}
	const fp = 0x0123456789abcdef
	x.Add(1, fp)
	x.Add(2, fp^0b1011)   // 3 bits away
	x.Add(3, fp^0xff0000) // 8 bits away
	for _, m := range x.Query(fp) {
		fmt.Println(m.ID, m.Distance)
	}
	// Unordered output:
	// 1 0
	// 2 3
}
