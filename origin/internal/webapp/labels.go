package webapp

import (
	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/keys"
)

// codeLabel is a code the API speaks (origin_type, org_type) with the
// words a page shows for it.
type codeLabel struct {
	Code, Label string
}

// labels is the table of words for every code a page may receive from
// the API, given to the page's script as JSON so that no list or form
// shows a raw code (the code stays in a tooltip or the filter's value).
type labels struct {
	Origins  map[string]string `json:"origin_types"`
	OrgTypes map[string]string `json:"org_types"`
}

func newLabels() labels {
	l := labels{Origins: map[string]string{}, OrgTypes: map[string]string{}}
	for _, o := range keys.OriginTypes() {
		l.Origins[o.Code] = o.Label
	}
	for _, c := range accounts.OrgTypes() {
		l.OrgTypes[c] = accounts.OrgTypeLabel(c)
	}
	return l
}

// orgTypeOptions are the register form's choices, labelled.
func orgTypeOptions() []codeLabel {
	var out []codeLabel
	for _, c := range accounts.OrgTypes() {
		out = append(out, codeLabel{Code: c, Label: accounts.OrgTypeLabel(c)})
	}
	return out
}
