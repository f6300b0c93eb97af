package accounts

// orgTypeLabels are the reader words for the org_type codes, in the
// order of orgTypes.
var orgTypeLabels = map[string]string{
	"camera_manufacturer": "Camera manufacturer",
	"ai_provider":         "AI provider",
	"creative_studio":     "Creative studio",
	"news_org":            "News organisation",
	"enterprise":          "Enterprise",
	"individual":          "Individual",
}

// OrgTypeLabel returns the human label of an org_type code, or the code
// itself when it is not one of OrgTypes (never an empty string for a
// non-empty code).
func OrgTypeLabel(code string) string {
	if l, ok := orgTypeLabels[code]; ok {
		return l
	}
	return code
}
