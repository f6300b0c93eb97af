package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// fileConfig is the config file (JSON, mode 0600): what login stores and
// the defaults a user sets once.
type fileConfig struct {
	URL    string `json:"url,omitempty"`
	APIKey string `json:"api_key,omitempty"`
	// Token is the session JWT of the last login, valid until
	// TokenExpiresAt.
	Token          string    `json:"token,omitempty"`
	TokenExpiresAt time.Time `json:"token_expires_at,omitzero"`
	Email          string    `json:"email,omitempty"`
	OrgName        string    `json:"org_name,omitempty"`
	// SigningKeyID is the default signing key of sign.
	SigningKeyID string `json:"signing_key_id,omitempty"`
}

const defaultURL = "http://127.0.0.1:8080"

// configPath is --config, else PROVENANT_CONFIG, else
// <user config dir>/provenant/config.json.
func configPath(flag string, getenv func(string) string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if p := getenv("PROVENANT_CONFIG"); p != "" {
		return p, nil
	}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		d, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("no config directory (set PROVENANT_CONFIG): %w", err)
		}
		dir = d
	}
	return filepath.Join(dir, "provenant", "config.json"), nil
}

// loadConfig reads the config file; a missing file is an empty config.
func loadConfig(path string) (fileConfig, error) {
	var c fileConfig
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("config file: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("config file %s: %w", path, err)
	}
	return c, nil
}

// remember writes the config file as it was loaded with change applied
// (a new key to keep); the running command's a.cfg is left as it was.
func (a *app) remember(change func(*fileConfig)) error {
	cfg := a.cfg
	change(&cfg)
	return saveConfig(a.cfgPath, cfg)
}

// saveConfig writes c atomically with mode 0600 (it holds credentials), in
// a directory created with mode 0700.
func saveConfig(path string, c fileConfig) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	f, err := os.CreateTemp(dir, ".config-*.json")
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("config file: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("config file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("config file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	return nil
}
