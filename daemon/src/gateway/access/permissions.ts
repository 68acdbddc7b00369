import type { JwtConfig } from '../config/model.js';

type PermissionSettings = Pick<JwtConfig, 'permissionsClaim' | 'permissionsMap' | 'rolesClaim' | 'rolesMap'>;

/**
 * The permissions a token grants: its permissions claim, its roles mapped through the roles
 * map (roles the map does not name get its `*` entry), then the permissions map applied
 * recursively to all of them. First-seen order, no duplicates.
 */
export function grantedPermissions(claims: Readonly<Record<string, unknown>>, cfg: PermissionSettings): { permissions: string[]; warnings: string[] } {
  const warnings: string[] = [];
  const granted: string[] = [];
  const add = (p: string): void => {
    if (!granted.includes(p)) granted.push(p);
  };
  if (cfg.permissionsClaim !== null) for (const p of claimValues(claims, cfg.permissionsClaim, warnings)) add(p);
  if (cfg.rolesClaim !== null && cfg.rolesMap !== null) {
    for (const role of claimValues(claims, cfg.rolesClaim, warnings)) {
      const mapped = Object.hasOwn(cfg.rolesMap, role) ? cfg.rolesMap[role] : cfg.rolesMap['*'];
      for (const p of mapped ?? []) add(p);
    }
  }
  if (cfg.permissionsMap !== null) {
    // Breadth-first over the growing list: each permission is expanded once, so cycles end.
    for (let i = 0; i < granted.length; i++) {
      const p = granted[i] as string;
      if (Object.hasOwn(cfg.permissionsMap, p)) for (const q of cfg.permissionsMap[p] ?? []) add(q);
    }
  }
  return { permissions: granted, warnings };
}

/** A claim holding a space-separated string or a list of strings; absent is empty. */
function claimValues(claims: Readonly<Record<string, unknown>>, name: string, warnings: string[]): string[] {
  const value = claims[name];
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value.split(/\s+/).filter((v) => v !== '');
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  warnings.push(`claim ${JSON.stringify(name)} is neither a string nor a list of strings; it grants nothing`);
  return [];
}
