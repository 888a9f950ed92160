package extract

// SecondOpinion exposes the second opinion to the external benchmarks.
func (e *Extractor) SecondOpinion(pageURL string, page []byte) []string {
	return e.secondOpinion(pageURL, page).lines
}
