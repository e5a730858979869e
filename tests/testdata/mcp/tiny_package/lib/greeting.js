module.exports = (name) => `Hello, ${name}!`;
