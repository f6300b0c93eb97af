package webhooks

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
)

func webhookKey(id string) []byte { return []byte("wh/w/" + id) }
func accountPrefix(acct string) []byte {
	return []byte("wh/a/" + acct + "/")
}
func accountKey(acct string, created time.Time, id string) []byte {
	return []byte(fmt.Sprintf("wh/a/%s/%016x/%s", acct, uint64(created.UnixNano()), id))
}
func deliveryKey(id string) []byte { return []byte("wh/d/" + id) }

// claimKey holds the claim (claimRec JSON) on a delivery's due attempt,
// with Config.Claims.
func claimKey(id string) []byte { return []byte("wh/c/" + id) }
func listPrefix(webhookID, status string) []byte {
	return []byte("wh/l/" + webhookID + "/" + status + "/")
}
func listKey(webhookID, status string, created time.Time, id string) []byte {
	return []byte(fmt.Sprintf("wh/l/%s/%s/%016x/%s", webhookID, status, math.MaxUint64-uint64(created.UnixNano()), id))
}

const queuePrefix = "whq/"

func queueKey(due time.Time, id string) []byte {
	n := due.UnixNano()
	if n < 0 {
		n = 0
	}
	return []byte(fmt.Sprintf("%s%016x/%s", queuePrefix, uint64(n), id))
}

// getByID reads the record stored under key(id), mapping a missing key and
// an id that cannot be a key segment ("" or containing "/") to ErrNotFound.
func getByID[T any](tx store.Txn, key func(string) []byte, what, id string) (T, error) {
	var zero T
	if id == "" || strings.Contains(id, "/") {
		return zero, ErrNotFound
	}
	return store.GetJSONOr[T](tx, key(id), ErrNotFound, "webhooks: "+what+" "+id)
}

func getRecord(tx store.Txn, id string) (webhookRecord, error) {
	return getByID[webhookRecord](tx, webhookKey, "webhook", id)
}

func getOwnRecord(tx store.Txn, owner, id string) (webhookRecord, error) {
	r, err := getRecord(tx, id)
	if err != nil {
		return r, err
	}
	if r.AccountID != owner {
		return webhookRecord{}, ErrNotFound
	}
	return r, nil
}

func putRecord(tx store.Txn, r webhookRecord) error {
	return store.PutJSON(tx, webhookKey(r.ID), r)
}

func getDelivery(tx store.Txn, id string) (Delivery, error) {
	return getByID[Delivery](tx, deliveryKey, "delivery", id)
}

// getOwnDelivery reads owner's delivery id and its webhook: ErrNotFound
// when the delivery is another account's or its webhook is not owner's.
func getOwnDelivery(tx store.Txn, owner, id string) (Delivery, webhookRecord, error) {
	d, err := getDelivery(tx, id)
	if err == nil && d.AccountID != owner {
		err = ErrNotFound
	}
	if err != nil {
		return Delivery{}, webhookRecord{}, err
	}
	r, err := getOwnRecord(tx, owner, d.WebhookID)
	return d, r, err
}

func putDelivery(tx store.Txn, d Delivery) error {
	return store.PutJSON(tx, deliveryKey(d.ID), d)
}

// setStatus moves d to status st, keeping the listing index in step. It
// does not touch the queue.
func setStatus(tx store.Txn, d *Delivery, st Status) error {
	if d.Status == st {
		return nil
	}
	if d.Status != "" {
		if err := tx.Delete(listKey(d.WebhookID, string(d.Status), d.CreatedAt, d.ID)); err != nil {
			return err
		}
	}
	d.Status = st
	return tx.Set(listKey(d.WebhookID, string(st), d.CreatedAt, d.ID), nil)
}

// removeDelivery deletes a delivery, its listing keys and its queue item.
// A delivery already gone is not an error; the "all" index key is removed
// in any case.
func removeDelivery(tx store.Txn, did, webhookID string) error {
	d, err := getDelivery(tx, did)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, st := range []string{"all", string(d.Status)} {
		if err := tx.Delete(listKey(webhookID, st, d.CreatedAt, did)); err != nil {
			return err
		}
	}
	if d.NextAttemptAt != nil {
		if err := tx.Delete(queueKey(*d.NextAttemptAt, did)); err != nil {
			return err
		}
	}
	return tx.Delete(deliveryKey(did))
}
