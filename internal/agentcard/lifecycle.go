package agentcard

import (
	"time"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// copySuffix ends the default name of a card's copy.
const copySuffix = "-copy"

// CheckStructure refuses a card no store may keep, draft or not, naming
// each of Structural's problems.
func CheckStructure(c Card) error {
	if errs := Structural(c); len(errs) > 0 {
		return failure.Invalid(errs...)
	}
	return nil
}

// Publishable refuses a card that cannot be published yet, naming every
// problem Validate finds (links resolves its skills' servers).
func Publishable(c Card, links Links) error {
	return unpublishable(c, links, "the card cannot be published until every problem listed is fixed")
}

// StaysPublishable refuses a change that would leave a published card
// invalid: such a card is unpublished before it is edited freely.
func StaysPublishable(c Card, links Links) error {
	return unpublishable(c, links, "the card is published and the change would make it invalid; unpublish it to edit it freely")
}

// unpublishable is Validate's problems of c as one failure with detail,
// nil when there are none.
func unpublishable(c Card, links Links, detail string) error {
	if errs := Validate(c, links); len(errs) > 0 {
		return &failure.Error{Kind: failure.KindInvalid, Fields: errs, Detail: detail}
	}
	return nil
}

// FirstPublished is when a card being published now was first published:
// at, kept across unpublishing, or now for its first publication.
func FirstPublished(at *time.Time, now time.Time) *time.Time {
	if at != nil {
		return at
	}
	return &now
}

// Duplicate is a copy of c named name, or by default c's name with
// "-copy" (cut to fit the limit), checked as any stored card is.
func Duplicate(c Card, name *string) (Card, error) {
	if name != nil {
		c.Name = *name
	} else {
		c.Name = copyName(c.Name)
	}
	if err := CheckStructure(c); err != nil {
		return Card{}, err
	}
	return c, nil
}

// copyName is the default name of a copy of a card called name, kept
// within MaxNameLength bytes.
func copyName(name string) string {
	if len(name)+len(copySuffix) > MaxNameLength {
		name = name[:MaxNameLength-len(copySuffix)]
	}
	return name + copySuffix
}

// Clone is c with lists of its own, so that edits of the copy leave c as it
// was.
func (c Card) Clone() Card {
	c.Skills = append([]Skill{}, c.Skills...)
	c.Examples = append([]Example{}, c.Examples...)
	c.Replies = append([]Reply(nil), c.Replies...)
	return c
}
