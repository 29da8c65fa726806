import {
  ConfigError,
  defaultCatalogSettings,
  IMAGE_MODELS,
  loadSettings,
  resolveCatalogSettings,
} from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

describe('the catalog setting contentMode', () => {
  it('is text unless set; text+image is kept', () => {
    expect(defaultCatalogSettings.contentMode).toBe('text');
    expect(resolveCatalogSettings({}).contentMode).toBe('text');
    expect(resolveCatalogSettings({ contentMode: 'text+image' }).contentMode).toBe('text+image');
  });

  it('refuses any other value with one error naming --content-mode and the values', () => {
    const bad = () => resolveCatalogSettings({ contentMode: 'image' as 'text' });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/--content-mode/);
    expect(bad).toThrow(/text\+image/);
  });
});

describe('the node setting GF_IMAGE_MODEL', () => {
  it('defaults to the first of IMAGE_MODELS and takes the environment', () => {
    expect(loadSettings({}, {}).imageModel).toBe(Object.keys(IMAGE_MODELS)[0]);
    expect(loadSettings({}, { GF_IMAGE_MODEL: 'siglip-base-patch16-224' }).imageModel).toBe('siglip-base-patch16-224');
  });

  it('a blank value is no value: the default', () => {
    expect(loadSettings({}, { GF_IMAGE_MODEL: '' }).imageModel).toBe(Object.keys(IMAGE_MODELS)[0]);
  });
});
