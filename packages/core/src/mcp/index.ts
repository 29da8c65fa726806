export * from './greenfinger-mcp.js';
