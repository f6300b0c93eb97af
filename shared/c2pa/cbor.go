package c2pa

import (
	"github.com/fxamacker/cbor/v2"
)

// The CBOR shapes of the C2PA v1 claim and the assertions we write. Field
// names are the specification's; the structs double as decoding targets,
// with cbor.RawMessage where other writers use more than one shape.

type hashedURI struct {
	URL  string `cbor:"url"`
	Alg  string `cbor:"alg,omitempty"`
	Hash []byte `cbor:"hash"`
}

type generatorInfo struct {
	Name    string `cbor:"name"`
	Version string `cbor:"version,omitempty"`
}

// claimV1 is the c2pa.claim map we write.
type claimV1 struct {
	ClaimGenerator     string          `cbor:"claim_generator"`
	ClaimGeneratorInfo []generatorInfo `cbor:"claim_generator_info,omitempty"`
	Signature          string          `cbor:"signature"`
	Assertions         []hashedURI     `cbor:"assertions"`
	Format             string          `cbor:"dc:format"`
	InstanceID         string          `cbor:"instanceID"`
	Title              string          `cbor:"dc:title,omitempty"`
	Alg                string          `cbor:"alg"`
}

// claimAny decodes both c2pa.claim (v1) and c2pa.claim.v2 maps.
type claimAny struct {
	ClaimGenerator     string          `cbor:"claim_generator"`
	ClaimGeneratorInfo cbor.RawMessage `cbor:"claim_generator_info"`
	Signature          string          `cbor:"signature"`
	Assertions         []hashedURI     `cbor:"assertions"`
	Created            []hashedURI     `cbor:"created_assertions"`
	Gathered           []hashedURI     `cbor:"gathered_assertions"`
	Format             string          `cbor:"dc:format"`
	InstanceID         string          `cbor:"instanceID"`
	Title              string          `cbor:"dc:title"`
	Alg                string          `cbor:"alg"`
}

type exclusion struct {
	Start  uint64 `cbor:"start"`
	Length uint64 `cbor:"length"`
}

type dataHash struct {
	Exclusions []exclusion `cbor:"exclusions,omitempty"`
	Name       string      `cbor:"name,omitempty"`
	Alg        string      `cbor:"alg"`
	Hash       []byte      `cbor:"hash"`
	Pad        []byte      `cbor:"pad"`
}

type actionsMap struct {
	Actions []actionMap `cbor:"actions"`
}

type actionMap struct {
	Action            string           `cbor:"action"`
	When              string           `cbor:"when,omitempty"`
	SoftwareAgent     cbor.RawMessage  `cbor:"softwareAgent,omitempty"`
	DigitalSourceType string           `cbor:"digitalSourceType,omitempty"`
	Parameters        *actionParamsMap `cbor:"parameters,omitempty"`
}

type actionParamsMap struct {
	Ingredient  *hashedURI  `cbor:"ingredient,omitempty"`
	Ingredients []hashedURI `cbor:"ingredients,omitempty"`
}

type ingredientMap struct {
	Title            string     `cbor:"dc:title"`
	Format           string     `cbor:"dc:format"`
	InstanceID       string     `cbor:"instanceID"`
	Relationship     string     `cbor:"relationship"`
	Manifest         *hashedURI `cbor:"c2pa_manifest,omitempty"`
	ActiveManifest   *hashedURI `cbor:"activeManifest,omitempty"`
	ValidationStatus []status   `cbor:"validationStatus,omitempty"`
}

type status struct {
	Code string `cbor:"code"`
	URL  string `cbor:"url,omitempty"`
}

type softBindingMap struct {
	Alg    string             `cbor:"alg"`
	Blocks []softBindingBlock `cbor:"blocks"`
	Pad    []byte             `cbor:"pad"`
}

type softBindingBlock struct {
	Scope map[string]any `cbor:"scope"`
	Value string         `cbor:"value"`
}

var (
	encMode = mustEncMode()
	decMode = mustDecMode()
)

func mustEncMode() cbor.EncMode {
	em, err := cbor.CoreDetEncOptions().EncMode()
	if err != nil {
		panic(err)
	}
	return em
}

// mustDecMode bounds what one CBOR item may cost to decode: the store is
// untrusted input.
func mustDecMode() cbor.DecMode {
	dm, err := cbor.DecOptions{
		MaxNestedLevels:  32,
		MaxArrayElements: 4096,
		MaxMapPairs:      4096,
		DupMapKey:        cbor.DupMapKeyEnforcedAPF,
		IndefLength:      cbor.IndefLengthAllowed,
		DefaultMapType:   nil,
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return dm
}
